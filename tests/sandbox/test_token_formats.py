"""Tokens recognised by their form under neutral names (`TOKEN_PREFIXES`), and the names of
secrets that are no `*_KEY` or `*TOKEN*` (a wallet's mnemonic, a TOTP seed): withheld; words
and ids that look alike: kept."""

from __future__ import annotations

import pytest

from tether.sandbox.environment import is_secret

HEX = "0123456789abcdef" * 4
B62 = "Qw3rTy9UiOp2AsDfG7hJkL1zXcVbN5mQ" * 4

WITHHELD = {
    "WORKSPACE_BOT": "secret_" + B62[:43],
    "CLOUD": "doo_v1_" + HEX,
    "HOOK_VERIFY": "whsec_" + B62[:32],
    "WAREHOUSE": "dapi" + HEX[:32] + "-2",
    "FILES": "sl.B" + B62[:100],
    "FILES_NEW": "sl.u." + B62[:120],
    "API_COLLECTION": "PMAK-" + HEX[:24] + "-" + HEX[:34],
    "MAILER": "xsmtpsib-" + HEX + "-" + B62[:16],
    "MAIL": "key-" + HEX[:32],
    "SMS": "SK" + HEX[:32],
    "SOPS_IDENTITY": "AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" + "Q" * 26,
    "BOT": "7012345678:AAF" + B62[:32],
    "NOTIFY": "https://hooks.slack.com/triggers/T01ABC/9876543210/" + HEX[:32],
    "ALERTS": "https://discordapp.com/api/webhooks/112233445566/" + B62[:68],
    "TEAMS": "https://contoso.webhook.office.com/webhookb2/" + HEX + "@" + HEX[:20],
    "INFERENCE": "gsk_" + B62[:52],
    "MODELS": "r8_" + B62[:37],
    "TAILNET": "tskey-auth-k" + B62[:30],
    "CONFIG_SYNC": "dp.st.dev." + B62[:40],
    "IAC": "pul-" + HEX[:40],
    "TFC": B62[:14] + ".atlasv1." + B62[:70],
    "DEPLOY": "--auth=fo1_" + B62[:43],
    "VAULT_SA": "ops_eyJzaWduSW5BZGRyZXNzIjoi" + B62[:40],
    "MAPS": "sk.eyJ1IjoiZXhhbXBsZSIsImEiOiJ" + B62[:20],
    "CHATOPS": "https://hooks.slack.com/services/T0/B0/x",
    "RELEASES": "https://discord.com/api/webhooks/1/x",
    "MNEMONIC": "legal winner thank year wave sausage worth useful legal winner thank yellow",
    "WALLET_SEED_PHRASE": "abandon abandon about",
    "TOTP_SEED": "JBSWY3DPEHPK3PXP",
    "DBPASS": "hunter2",
}

KEPT = {
    "RANDOM_SEED": "42",
    "PYTHONHASHSEED": "0",
    "COMMIT": HEX[:40],
    "BUILD_ID": "dapi-dashboard",
    "SKIN": "SKY-blue",
    "CONTACT": "key-value store",
    "CLOCK": "12:30:45",
    "DOCS": "https://hooks.example.org/services/docs",
    "BYPASS_CACHE": "1",
    "COMPASS_HOME": "/opt/compass",
    "SLUG": "sl.example",
}


@pytest.mark.parametrize(("name", "value"), WITHHELD.items(), ids=list(WITHHELD))
def test_token_formats_and_secret_names_are_withheld(name: str, value: str) -> None:
    assert is_secret(name, value) is True


@pytest.mark.parametrize(("name", "value"), KEPT.items(), ids=list(KEPT))
def test_look_alikes_are_kept(name: str, value: str) -> None:
    assert is_secret(name, value) is False

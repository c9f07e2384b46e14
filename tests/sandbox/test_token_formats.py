"""Tokens recognised by their form under neutral names (`TOKEN_PREFIXES`), and the names of
secrets that are no `*_KEY` or `*TOKEN*` (a wallet's mnemonic, a TOTP seed): withheld; words
and ids that look alike: kept."""

from __future__ import annotations

import pytest

from tether.sandbox.environment import is_secret
from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context

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

PEM_B64 = "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVFSUlt"
"""base64 of `-----BEGIN EC PRIVATE KEY-----` and a key's first bytes."""
MORE_FORMATS = {
    "APP_MACHINE": "FlyV1 fm2_" + B62[:120] + "/+=",
    "PLATFORM_DB": "sb_secret_" + B62[:31],
    "MAILS": "re_" + B62[:8] + "_" + B62[8:32],
    "PIPELINE": "CCIPAT_" + B62[:22] + "_" + HEX[:40],
    "BUILDS": "bkua_" + HEX[:40],
    "BINARIES": "AKCp" + B62[:69],
    "BINARIES_REF": "cmVmd" + B62[:59],
    "SECRETS_SVC": "st." + "5f3a9c1e-7b2d-4e8f-a1b3-c9d7e5f4a2b1" + "." + HEX[:32] + "." + HEX[:32],
    "TRACES": "lsv2_pt_" + HEX[:32] + "_" + HEX[:10],
    "VECTORS": "pcsk_" + B62[:6] + "_" + B62[:60],
    "VOICE": "sk_" + HEX[:48],
    "CLUSTER_CA_KEY": PEM_B64,
    "CLOUD_CN": "LTAI" + B62[:20],
    "BEDROCK": "ABSK" + B62[:120],
    "ORIGIN_CA": "v1.0-" + HEX[:24] + "-" + (HEX * 3)[:146],
    "OBSERVE": "dt0c01." + B62[:24] + "." + B62[:64],
    "HF_ORGS": "api_org_" + "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi",
}
"""Formats attack14 found kept (F9) and gitleaks' fixed-prefix rules that were missing."""

MORE_LOOK_ALIKES = {
    "CLUSTER_CA": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=",
    "RERUN": "re_run_the_whole_suite_again_please",
    "CITY": "st.louis.example",
    "SK_SIZE": "sk_small",
    "BUILD": "bkua_short",
}
"""A certificate in base64 is public; words that begin like a token are not one."""

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


@pytest.mark.parametrize(("name", "value"), MORE_FORMATS.items(), ids=list(MORE_FORMATS))
def test_more_token_formats_are_withheld(name: str, value: str) -> None:
    assert is_secret(name, value) is True


@pytest.mark.parametrize(("name", "value"), MORE_LOOK_ALIKES.items(), ids=list(MORE_LOOK_ALIKES))
def test_more_look_alikes_are_kept(name: str, value: str) -> None:
    assert is_secret(name, value) is False


@needs_bwrap
async def test_the_command_does_not_get_them(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in (*MORE_FORMATS.items(), *MORE_LOOK_ALIKES.items()):
        monkeypatch.setenv(name, value)
    run = bash_runner(sandboxed_context(boundary))
    names = " ".join((*MORE_FORMATS, *MORE_LOOK_ALIKES))
    outcome = await run(command=f'for n in {names}; do echo "$n=${{!n-unset}}"; done')
    shown = [f"{n}=unset" for n in MORE_FORMATS]
    shown += [f"{n}={v}" for n, v in MORE_LOOK_ALIKES.items()]
    assert outcome == ToolOutcome("\n".join(shown), False)

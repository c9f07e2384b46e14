"""Secrets withheld from sandboxed commands under neutral names: vendors' formats the table
lacked (Vercel, SonarQube, Honeycomb, PostHog, Aiven, Neon, Render, Bitbucket, Google OAuth),
and the shapes of any vendor's (`secret_shapes.py`): a prefixed random token, a secret
assigned inside a value, an HTTP credential, a private key's DER in base64 (PKCS#8 plain and
encrypted, PKCS#1, SEC1, Ed25519), an OpenSSH key's body, a PuTTY key file, docker's `auths`;
any case of an HTTP scheme, any spelling of an assigned key, a `-` after a label. Look-alikes
are kept: words, ids, camel-case names, certificates and public keys, references, and a switch
(`false`, `1`, `off`) whose name says token or auth."""

from __future__ import annotations

import json

import pytest

from tether.sandbox.environment import is_secret
from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context

B62 = "Qw3rTy9UiOp2AsDfG7hJkL1zXcVbN5mQ" * 4
HEX = "0123456789abcdef" * 4
DOCKER = {"auths": {"registry.example.com": {"auth": "dXNlcjpodW50ZXIy"}}}

WITHHELD = {
    "DEPLOYS": "vcp_" + B62[:56],
    "TG": "tgp_v1_" + B62[:43],
    "QUALITY": "squ_" + HEX[:40],
    "EVENTS": "hcaik_01" + B62[:56],
    "PRODUCT": "phx_" + B62[:47],
    "DB_ADMIN": "AVNS_" + B62[:22],
    "SERVERLESS_DB": "postgres-pass npg_" + B62[:12],
    "HOSTING": "rnd_" + B62[:32],
    "REPOS": "ATBB" + B62[:32],
    "OAUTH": "ya29.a0" + B62[:100],
    "OAUTH_REFRESH": "1//0g" + B62[:40],
    "PKCS8": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC" + B62[:40],
    "PKCS8_ENCRYPTED": "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI" + B62[:40],
    "PKCS1": "MIIEpAIBAAKCAQEAwJ5ngd3Hq1oVxR2l" + B62[:40],
    "ED25519": "MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF",
    "SEC1": "MHcCAQEEIIm3M2ZfPBn2lQzQ0s4rGnEh3Q3lY0f1" + B62[:20],
    "PEM_PKCS8": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
    "PEM_ENCRYPTED": "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0w",
    "PUTTY": "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n",
    "REGISTRY": json.dumps(DOCKER),
    "ANY_VENDOR": "acme_" + B62[:32],
    "ANY_VENDOR_LIVE": "ACME_live_" + B62[:28],
    "BUILD_ARGS": "--build-arg NPM_TOKEN=" + B62[:24],
    "DOTENV": "DEBUG=1\nSTRIPE_SECRET=" + B62[5:29] + "\n",
    "JSON_CONFIG": '{"client_secret": "' + B62[3:27] + '"}',
    "HEADERS": "Authorization: Bearer " + B62[:40],
    "HEADERS_LOWER": "Authorization: bearer " + B62[:40],
    "BASIC_UPPER": "BASIC " + B62[:24],
    "DB_SETTINGS": "db_pass=" + B62[:16],
    "ASSIGNED_1": "pwd=" + B62[:16],
    "ASSIGNED_2": "passwd: " + B62[:16],
    "ASSIGNED_3": "credential=" + B62[:16],
    "ASSIGNED_4": "creds = '" + B62[:16] + "'",
    "ASSIGNED_5": "AUTH=" + B62[:16],
    "ASSIGNED_6": '{"apikey": "' + B62[:16] + '"}',
    "BUILD_ARGS_2": "--build-arg NPM_AUTH=" + B62[:20],
    "LETTERS_AND_DIGITS": "token=abcdefghijklmnop1",
    "SHORT_ALPHABET": "password: hunter2hunter2",
    "HEX_ASSIGNED": "secret=" + HEX[:20],
    "DASHED_VENDOR": "abc-" + B62[:32],
    "DASHED_VENDOR_LIVE": "acme-live-" + B62[:28],
    "LONG_LABEL": "ABCDEFGHI_" + B62[:28],
    "MIXED_CASE_LABEL": "Zz_" + B62[:28],
    "TETHER_UNLISTED_SWITCH": "1",  # tether's own go whatever they hold
    "OPENSSH_BODY": "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQy",
}

KEPT = {
    "CERTIFICATE_DER": "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ",
    "SIGNER_DER": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo",
    "PROJECT": "my_ProjectName2026Release",
    "TARGET": "build_20260101_abcdef0123",
    "CUSTOMER": "cus_NffrFeUfNV2Hib",
    "REQUEST": "req_abcdefghijklmnopqrstuvwx",
    "IMAGE": "sha256:" + HEX,
    "FILE_HINT": "TOKEN_FILE=/run/secrets/api",
    "TEMPLATE": "api_key=${API_KEY}",
    "PLACEHOLDER": "x_token=placeholder_value",
    "ASSIGNED_WORDS": "ENV_TOKEN=MyServiceProductionToken",
    "CHALLENGE": 'Bearer realm="registry"',
    "DOCKER_EMPTY": '{"auths": {}}',
    "PUTTY_DOCS": "see the PuTTY user manual",
    "TOKENIZERS_PARALLELISM": "false",
    "SESSION_COOKIE_SECURE": "1",
    "USE_AUTH": "True",
    "SECRET_SCANNING": "off",
    "BEARER_WORDS": "the bearer of this message is trusted",
    "SCHEME_CHALLENGE": 'bearer realm="api", error="invalid_token"',
    "BRANCH": "fix-LoginPageRedirect2026",
    "POD": "web-7d9f8b6c5d-x2k4p",
    "IMAGE_TAG": "docker.io/library/python:3.11-slim-bookworm",
    "UUID": "550e8400-e29b-41d4-a716-446655440000",
    "INTEGRITY": "sha512-" + B62[:40] + "==",
    "IDENTITY_SETTING": "private_key: keys/id_ed25519",
    "SKIP_RULE": "bypass: MyServiceProductionToken",
    "SIGNER": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9",
}


@pytest.mark.parametrize(("name", "value"), WITHHELD.items(), ids=list(WITHHELD))
def test_formats_and_shapes_are_withheld(name: str, value: str) -> None:
    assert is_secret(name, value) is True


@pytest.mark.parametrize(("name", "value"), KEPT.items(), ids=list(KEPT))
def test_look_alikes_are_kept(name: str, value: str) -> None:
    assert is_secret(name, value) is False


@needs_bwrap
async def test_the_command_does_not_get_them(
    boundary: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in (*WITHHELD.items(), *KEPT.items()):
        monkeypatch.setenv(name, value)
    run = bash_runner(sandboxed_context(boundary))
    names = " ".join((*WITHHELD, *KEPT))
    outcome = await run(command=f'for n in {names}; do echo "$n=${{!n+set}}"; done')
    shown = [f"{n}=" for n in WITHHELD] + [f"{n}=set" for n in KEPT]
    assert outcome == ToolOutcome("\n".join(shown), False)

"""Which environment variables a sandboxed command does not get: secrets, by name and by value.

The sandbox cuts the network, but a key in the environment can still be written into the
workspace, a log or a commit, and with the network allowed it can leave. So variables whose
names say they hold a secret are removed (by a word, `*TOKEN*`, unless the value is a switch:
`TOKENIZERS_PARALLELISM=false`), and tether's and the model vendors' own variables
(their keys, tether's configuration) with them; so are values that carry a credential whatever
the name: a URL with a user or password in it (`postgres://user:pw@host/db`,
`https://token@host`), a URL whose query passes a password, token or key, a connection string
with a password or account key, and a value that holds a well-known token's prefix at the
start of a word (`ghp_`, `xoxb-`, `sk-ant-`, `AKIA`, `glpat-`, a JWT, a PEM private key...),
whatever the variable is called.
`sandbox.env` names variables to keep anyway.

The tables are the policy: `SECRET_NAME_PATTERNS` (what goes), `KEPT_NAMES` (what tools need,
never removed by name although a pattern matches), `SECRET_QUERY_PARAMETERS`,
`TOKEN_PREFIXES`.
"""

from __future__ import annotations

import base64
import contextlib
import fnmatch
import re
from collections.abc import Iterable, Mapping

from tether.sandbox.outside_home import only_credentials
from tether.sandbox.secret_shapes import plain_setting, secret_shape

SECRET_WORD_PATTERNS: tuple[str, ...] = (
    # keys, tokens, passwords
    "*API_KEY*", "*APIKEY*", "*_KEY", "*_KEYS", "*PRIVATE*", "*ACCESS_KEY*", "*TOKEN*",
    "*SECRET*", "*PASSWORD*", "*PASSWD*", "*PASSPHRASE*", "*_PASS", "*_PW", "*PWD",
    "*CREDENTIAL*", "*AUTH*", "*COOKIE*", "*SESSION*", "*JWT*", "*WEBHOOK*", "*_PAT",
    "*SIGNING*", "*CONNECTION_STRING*", "*_DSN", "*_DSN_*", "*DBPASS", "*MNEMONIC*",
    "*SEED_PHRASE*", "*SEEDPHRASE*", "*RECOVERY_PHRASE*", "*TOTP*",
)  # fmt: skip
"""Names that say a secret by a word in them: withheld unless the value is a switch
(`TOKENIZERS_PARALLELISM=false`, `SESSION_COOKIE_SECURE=true`: `secret_shapes.plain_setting`)."""

SECRET_NAME_PATTERNS: tuple[str, ...] = (
    *SECRET_WORD_PATTERNS,
    # clouds, forges, registries, vaults
    "AWS_*", "AZURE_*", "GOOGLE_*", "GCP_*", "GCLOUD_*", "CLOUDSDK_AUTH_*", "DIGITALOCEAN_*",
    "GH_*", "GITHUB_*", "GITLAB_*", "BITBUCKET_*", "NPM_*TOKEN*", "NPM_CONFIG__AUTH*",
    "HF_*", "HUGGING*", "VAULT_*", "DOCKER_HOST", "DOCKER_CONFIG", "KUBECONFIG",
    # the model vendors' and tether's own
    "ANTHROPIC_*", "OPENAI_*", "CLAUDE_*", "CLAUDECODE", "TETHER_*",
    # agents and caches that hold credentials
    "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KRB5CCNAME", "NETRC",
)  # fmt: skip
"""Names (case-insensitive, shell-style patterns) of variables a sandboxed command does not get."""

SECRET_NAME_PARTS: frozenset[str] = frozenset(
    {"KEY", "PASS", "PW", "CREDS", "PRIVKEY", "HMAC", "OTP"}
)
"""Whole parts of a name (between `_`) that say it holds a secret (`PASS`, `DB_CREDS`,
`KEY_FILE`): as parts, not inside a word (`KEYBOARD`, `PASSENGER`, `FOOTPRINT` pass)."""

KEPT_NAMES: frozenset[str] = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "LANG", "LANGUAGE",
        "TERM", "TZ", "TMPDIR", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH",
        # git's commit identity (`*AUTH*` would take them)
        "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
        # desktop session facts, no credentials (`*SESSION*` would take them)
        "XDG_SESSION_TYPE", "XDG_SESSION_CLASS", "XDG_SESSION_DESKTOP", "DESKTOP_SESSION",
        # programs that ask for a password, not passwords
        "SSH_ASKPASS", "GIT_ASKPASS", "SUDO_ASKPASS",
    }
)  # fmt: skip
"""Names never withheld by name, whatever pattern they match: what tools need to run (their
values are still checked for credentials)."""

SECRET_QUERY_PARAMETERS: tuple[str, ...] = (
    "password", "passwd", "pwd", "pass", "token", "key", "secret", "auth", "signature",
    "sig", "credential", "session", "jwt",
)  # fmt: skip
"""A URL query parameter whose name holds one of these (`?password=`, `access_token=`,
`X-Amz-Signature=`, `api_key=`) carries a credential."""

TOKEN_PREFIXES: tuple[str, ...] = (
    r"gh[pousr]_[A-Za-z0-9]{16,}",  # GitHub: personal, OAuth, user-to-server, app, refresh
    r"github_pat_[A-Za-z0-9_]{16,}",  # GitHub: fine-grained personal
    r"xox[abeoprs]-[A-Za-z0-9-]{8,}",  # Slack: bot, user, app-level, refresh...
    r"xapp-[A-Za-z0-9-]{8,}",  # Slack: app-level
    r"sk-[A-Za-z0-9_-]{16,}",  # OpenAI (sk-proj-...), Anthropic (sk-ant-...), and their kin
    r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",  # AWS access key ids (long-term, temporary)
    r"glpat-[A-Za-z0-9_-]{16,}",  # GitLab personal access token
    r"npm_[A-Za-z0-9]{30,}",  # npm
    r"hf_[A-Za-z0-9]{30,}",  # Hugging Face
    r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe secret and restricted keys
    r"AIza[A-Za-z0-9_-]{30,}",  # Google API keys
    r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*\.?",  # a JWT: base64url of '{"...' dot payload
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY",  # PEM (RSA, EC, OPENSSH, PKCS#8) and PGP private keys
    r"pypi-[A-Za-z0-9_-]{16,}",  # PyPI upload token
    r"dckr_pat_[A-Za-z0-9_-]{16,}",  # Docker Hub personal access token
    r"gl(?:rt|dt|ptt|ft|cbt|imt|soat|oas)-[A-Za-z0-9_-]{16,}",  # GitLab runner, deploy...
    r"hv[sbr]\.[A-Za-z0-9_-]{20,}",  # HashiCorp Vault service, batch, recovery tokens
    r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",  # SendGrid
    r"shp(?:at|ca|pa|ss)_[A-Fa-f0-9]{32}",  # Shopify
    r"sq0(?:csp|atp)-[A-Za-z0-9_-]{20,}",  # Square
    r"lin_api_[A-Za-z0-9]{30,}",  # Linear
    r"ntn_[A-Za-z0-9]{30,}",  # Notion
    r"sntry[su]_[A-Za-z0-9_=+/-]{30,}",  # Sentry
    r"glsa_[A-Za-z0-9_]{30,}",  # Grafana service account
    r"ATATT3[A-Za-z0-9_=-]{30,}",  # Atlassian API token
    r"rubygems_[a-f0-9]{40,}",  # RubyGems
    r"figd_[A-Za-z0-9_-]{30,}",  # Figma
    r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{30,}",  # PlanetScale
    r"HRKU-[A-Za-z0-9_-]{30,}",  # Heroku
    r"secret_[A-Za-z0-9]{40,}",  # Notion (internal integrations, before ntn_)
    r"do[por]_v1_[a-f0-9]{64}",  # DigitalOcean personal, OAuth, refresh
    r"whsec_[A-Za-z0-9+/=]{16,}",  # Stripe (and Svix) webhook signing secrets
    r"dapi[a-f0-9]{32}",  # Databricks personal access token
    r"sl\.(?:[A-Za-z]\.)?[A-Za-z0-9_-]{30,}",  # Dropbox short-lived access token
    r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",  # Postman API key
    r"x(?:keysib|smtpsib)-[a-f0-9]{32,}",  # Brevo (Sendinblue) API and SMTP
    r"key-[a-f0-9]{32}\b",  # Mailgun API key
    r"SK[a-f0-9]{32}\b",  # Twilio API key
    r"AGE-SECRET-KEY-1[0-9A-Z]{58}",  # age private key (also in sops' key files)
    r"\d{8,10}:AA[A-Za-z0-9_-]{28,}",  # Telegram bot token
    r"https://hooks\.slack\.com/(?:services|workflows|triggers)/\S",  # Slack
    r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/\S",  # Discord
    r"https://[a-z0-9-]+\.webhook\.office\.com/[A-Za-z0-9/@_-]{30,}",  # Teams incoming webhook
    r"gsk_[A-Za-z0-9]{40,}",  # Groq
    r"r8_[A-Za-z0-9]{30,}",  # Replicate
    r"pplx-[A-Za-z0-9]{40,}",  # Perplexity
    r"xai-[A-Za-z0-9]{40,}",  # xAI
    r"tskey-[a-z]+-[A-Za-z0-9-]{20,}",  # Tailscale auth and API keys
    r"dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_-]+\.)?[A-Za-z0-9]{30,}",  # Doppler
    r"pul-[a-f0-9]{40}",  # Pulumi access token
    r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}",  # Terraform Cloud / Enterprise
    r"sbp_[a-f0-9]{40}",  # Supabase
    r"nfp_[A-Za-z0-9]{30,}",  # Netlify
    r"NRAK-[A-Z0-9]{27}",  # New Relic user key
    r"CFPAT-[A-Za-z0-9_-]{40,}",  # Contentful
    r"ops_eyJ[A-Za-z0-9_-]{20,}",  # 1Password service account
    r"sk\.eyJ[A-Za-z0-9_-]{20,}",  # Mapbox secret token
    r"fo1_[A-Za-z0-9_-]{30,}",  # Fly.io
    r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}",  # Airtable personal access token
    r"fm[12][ar]?_[A-Za-z0-9+/]{60,}",  # Fly.io macaroons (`FlyV1 fm2_...`)
    r"sb_secret_[A-Za-z0-9_-]{20,}",  # Supabase secret keys
    r"re_(?=[A-Za-z0-9_]*[0-9])[A-Za-z0-9_]{30,}",  # Resend
    r"CCIP(?:AT|RJ)_[A-Za-z0-9]{16,}_[a-f0-9]{32,}",  # CircleCI personal and project tokens
    r"bk(?:ua|ct)_[a-f0-9]{40}",  # Buildkite API and cluster tokens
    r"AKCp[A-Za-z0-9]{60,}",  # Artifactory API key
    r"cmVmd[A-Za-z0-9]{59}",  # Artifactory reference token
    r"st\.[A-Za-z0-9-]{16,}\.[a-f0-9]{32}\.[a-f0-9]{32}",  # Infisical service token
    r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}",  # LangSmith personal and service keys
    r"pcsk_[A-Za-z0-9]{4,}_[A-Za-z0-9]{40,}",  # Pinecone
    r"sk_[a-f0-9]{48}\b",  # ElevenLabs
    r"LTAI[A-Za-z0-9]{20}",  # Alibaba Cloud access key id
    r"ABSK[A-Za-z0-9+/]{100,}",  # Amazon Bedrock API key
    r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}",  # 1Password
    r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}",  # Cloudflare origin CA key
    r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",  # Dynatrace
    r"EZ[AT]K[A-Za-z0-9]{54}",  # EasyPost
    r"EAA[ACM][A-Za-z0-9]{60,}",  # Facebook (Meta) and Square access tokens
    r"FLWSECK(?:_TEST)?-[A-Za-z0-9]{12,}",  # Flutterwave
    r"glagent-[A-Za-z0-9_-]{50}",  # GitLab agent for Kubernetes
    r"glc_[A-Za-z0-9+/]{32,}",  # Grafana Cloud
    r"api_org_[A-Za-z]{34}",  # Hugging Face organisation
    r"pnu_[A-Za-z0-9]{36}",  # Prefect
    r"rdme_[a-z0-9]{70}",  # ReadMe
    r"sgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}",  # Sourcegraph
    r"sha256~[A-Za-z0-9_-]{43}",  # OpenShift user token
    r"CLOJARS_[A-Za-z0-9]{60}",  # Clojars
    r"shippo_(?:live|test)_[a-f0-9]{40}",  # Shippo
    r"duffel_(?:live|test)_[A-Za-z0-9_=-]{43}",  # Duffel
    r"tk-us-[A-Za-z0-9_-]{48}",  # Scalingo
    r"ico-[A-Za-z0-9]{32}\b",  # Infracost
    r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",  # Harness
    r"vc[pikar]_[A-Za-z0-9]{20,}",  # Vercel personal, integration, API key, app, refresh
    r"tgp_v1_[A-Za-z0-9_-]{20,}",  # tgp_v1_ API tokens
    r"sq[upa]_[a-f0-9]{40}",  # SonarQube user, project and analysis tokens
    r"hc[ax](?:ik|mk)_[A-Za-z0-9]{20,}",  # Honeycomb ingest and management keys
    r"ph[xs]_[A-Za-z0-9]{30,}",  # PostHog personal and secret keys
    r"AVNS_[A-Za-z0-9_-]{16,}",  # Aiven service passwords
    r"npg_[A-Za-z0-9]{12,}",  # Neon database passwords
    r"rnd_[A-Za-z0-9]{24,}",  # Render API keys
    r"ATBB[A-Za-z0-9_=.-]{24,}",  # Bitbucket app passwords
    r"ya29\.[A-Za-z0-9_-]{20,}",  # Google OAuth access tokens
    r"1//0[A-Za-z0-9_-]{30,}",  # Google OAuth refresh tokens
    r"GOCSPX-[A-Za-z0-9_-]{20,}",  # Google OAuth client secrets
    r"nvapi-[A-Za-z0-9_-]{40,}",  # NVIDIA
    r"tvly-[A-Za-z0-9_-]{20,}",  # Tavily
    r"jina_[A-Za-z0-9_-]{40,}",  # Jina
    r"mlsn\.[a-f0-9]{60,}",  # MailerSend
)
"""Regular expressions for tokens whose form says what they are: a value that holds one
anywhere, at the start of a word (`--token=ghp_...`, a JSON config, a second line), is withheld
whatever its name. Case matters (`ASIA` is a key id, `Asia/Tokyo` a time zone); each needs
enough characters after its prefix to be a token rather than a word.

Checked against gitleaks' rule set (config/gitleaks.toml, July 2026: every rule with a fixed
prefix has a line here or is covered by a broader one) and the formats vendors document
(Supabase's `sb_secret_`, LangSmith's `lsv2_`, Pinecone's `pcsk_`, CircleCI's `CCIPAT_`,
Buildkite's `bkua_`...). A PEM private key in base64 (`LS0tLS1CRUdJTi`, as Kubernetes and CI
variables carry one) is decoded and withheld when it is a private key (`_BASE64_PEM`).

Beside the table, the shapes tokens of any vendor share (`secret_shapes.py`: a prefixed
random body, a `*_TOKEN=`/`*_KEY=`/`*_SECRET=` assignment inside a value, `Bearer ...`, a
private key's DER in base64, a PuTTY key file, docker's `auths`), so that a vendor not listed
yet is withheld too.

A table, not a library (measured: gitleaks' rule set of July 2026, MIT-licensed, 222 rules,
parsed and compiled in Python costs 180 ms at every start, 25 rules do not compile as Python
expressions, and it lacks most formats above: Vercel's, PostHog's, Neon's, Render's,
Aiven's); detect-secrets' plugins (the best-kept library) are about twenty-five
detectors for lines of source files, with entropy and keyword heuristics that would withhold
ordinary values (hashes, ids); it knows fewer vendors' formats than this table (none of
Notion's, DigitalOcean's, Databricks', Postman's, Brevo's, age's), so it would be a
dependency for less."""

_SECRET_WORD = re.compile("|".join(fnmatch.translate(p) for p in SECRET_WORD_PATTERNS))
_SECRET_PLACE = re.compile(
    "|".join(fnmatch.translate(p) for p in SECRET_NAME_PATTERNS[len(SECRET_WORD_PATTERNS) :])
)
_NAME_PARTS = re.compile(r"[^A-Z0-9]+")
_GIT_CONFIG_ENV = re.compile(r"GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)")
"""git's settings in the environment (`GIT_CONFIG_KEY_<n>`, `GIT_CONFIG_VALUE_<n>`): judged by
value, never by name (`KEY` would take them, and git then refuses to start)."""
_URL_WITH_USERINFO = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s?#@]+@", re.IGNORECASE)
_SECRET_QUERY = re.compile(
    r"://[^\s]*[?&;][^=&;#\s]*(?:" + "|".join(SECRET_QUERY_PARAMETERS) + r")[^=&;#\s]*=[^&;#\s]",
    re.IGNORECASE,
)
_CONNECTION_STRING = re.compile(
    r"(?:^|;)\s*(?:password|pwd|accountkey|sharedaccesskey|sharedaccesssignature)\s*=\s*[^;\s]",
    re.IGNORECASE,
)


_TOKEN_VALUE = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(TOKEN_PREFIXES) + ")")
_BASE64_PEM = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{8,}")
"""base64 of `-----BEGIN`: a certificate is public, a private key is not (decoded to tell)."""


def _base64_private_key(value: str) -> bool:
    for found in _BASE64_PEM.finditer(value):
        text = found.group(0)[:200]
        text = text[: len(text) - len(text) % 4]
        with contextlib.suppress(ValueError):
            if b"PRIVATE KEY" in base64.b64decode(text):
                return True
    return False


def is_secret(name: str, value: str) -> bool:
    """Whether `name=value` is withheld from sandboxed commands (unless in `sandbox.env`)."""
    upper = name.upper()
    if only_credentials(name):
        return True
    if (
        upper not in KEPT_NAMES
        and not _GIT_CONFIG_ENV.fullmatch(upper)
        and (
            _SECRET_PLACE.match(upper)
            or (
                (
                    _SECRET_WORD.match(upper)
                    or not SECRET_NAME_PARTS.isdisjoint(_NAME_PARTS.split(upper))
                )
                and not plain_setting(value)
            )
        )
    ):
        return True
    if _TOKEN_VALUE.search(value) or _base64_private_key(value):
        return True
    if secret_shape(value) is not None:
        return True
    return any(p.search(value) for p in (_URL_WITH_USERINFO, _SECRET_QUERY, _CONNECTION_STRING))


def withheld(env: Mapping[str, str], keep: Iterable[str] = ()) -> list[str]:
    """The names in `env` that a sandboxed command does not get, sorted; `keep` are exempt."""
    kept = set(keep)
    return sorted(n for n, v in env.items() if n not in kept and is_secret(n, v))


def git_config_pairs(env: dict[str, str]) -> dict[str, str]:
    """`env` with its `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` pairs numbered again from 0
    and counted, those with a half withheld dropped whole: git refuses to start on a key
    without its value or a count past the pairs."""
    count = env.pop("GIT_CONFIG_COUNT", "")
    pairs: list[tuple[str, str]] = []
    for n in range(int(count) if count.isdigit() else 0):
        key, value = env.pop(f"GIT_CONFIG_KEY_{n}", None), env.pop(f"GIT_CONFIG_VALUE_{n}", None)
        if key is not None and value is not None:
            pairs.append((key, value))
    for name in [n for n in env if _GIT_CONFIG_ENV.fullmatch(n)]:
        del env[name]
    for n, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{n}"], env[f"GIT_CONFIG_VALUE_{n}"] = key, value
    if pairs:
        env["GIT_CONFIG_COUNT"] = str(len(pairs))
    return env

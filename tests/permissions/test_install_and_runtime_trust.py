"""Options of allowed installers and runtimes that change whom they trust or what their code
and builds run, one table per tool: deno's `--cert`, `--unsafely-ignore-certificate-errors`,
`--v8-flags` beyond sizes, `--inspect` off loopback, a configuration or import map outside
(deno_settings) and `DENO_DIR`/`DENO_CERT`/`DENO_V8_FLAGS` before any program; pip's and
uv's `--cert`, `--client-cert`, `--proxy`, build settings (`-C`, `--config-settings`),
`--trusted-host` (package_indexes); conda's channels other than the defaults (`-c
evilchan`, `CHAN::pkg`, `pkg[channel=CHAN]`). Each asks under an allow rule for the tool;
routine forms stay allowed."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

ALLOWS = ["Bash(deno *)", "Bash(pip install *)", "Bash(pip *)", "Bash(conda install *)"]
ALLOWS += ["Bash(python3 -m pip install *)", "Bash(uv pip install *)", "Bash(make *)"]
RULES = {"permissions": {"allow": ALLOWS}}

CERT = "deno trusts the certificate authority in {} for every download: whoever holds its"
CERT += " key may answer for any host it fetches code from"
CONDA = "conda installs packages, whose link scripts run, from the channel {}, which its"
CONDA += " configuration does not name: not seen"
SETTINGS = "{} hands the build backend the settings {}, which may choose the programs its"
SETTINGS += " build runs: not seen"
ASKED = [
    ("deno run --cert=certs/ca.pem src/a.ts", CERT.format("certs/ca.pem")),
    ("deno cache --cert=ca.pem src/a.ts", CERT.format("ca.pem")),
    ("deno test --cert=ca.pem", CERT.format("ca.pem")),
    (
        "deno run --unsafely-ignore-certificate-errors src/a.ts",
        "deno takes code from every host without checking certificates: any host on the way"
        " may answer for it",
    ),
    (
        "deno run --unsafely-ignore-certificate-errors=x.example src/a.ts",
        "deno takes code from x.example without checking certificates: any host on the way"
        " may answer for it",
    ),
    (
        "deno run --v8-flags=--allow-natives-syntax src/a.ts",
        "deno hands V8 the options --allow-natives-syntax",
    ),
    (
        "deno --v8-flags=--expose-gc,--allow-natives-syntax src/a.ts",
        "deno hands V8 the options --allow-natives-syntax",
    ),
    (
        "deno test --v8-flags=--no-lazy-feedback-allocation",
        "deno hands V8 the options --no-lazy-feedback-allocation",
    ),
    (
        "deno run --inspect=0.0.0.0:9229 src/a.ts",
        "deno --inspect lets whoever reaches 0.0.0.0:9229 run code",
    ),
    (
        "deno run --inspect-brk=10.0.0.5:9229 src/a.ts",
        "deno --inspect-brk lets whoever reaches 10.0.0.5:9229 run code",
    ),
    (
        "pip install --cert certs/ca.pem requests",
        "pip trusts the certificate authority in certs/ca.pem for the index: whoever holds its"
        " key may answer for it",
    ),
    (
        "pip --cert=certs/ca.pem install requests",
        "pip trusts the certificate authority in certs/ca.pem for the index: whoever holds its"
        " key may answer for it",
    ),
    (
        "pip install --client-cert=client.pem requests",
        "pip sends the key and certificate in client.pem to the index",
    ),
    (
        "pip install --proxy http://proxy.example:3128 requests",
        "pip fetches packages through http://proxy.example:3128, a proxy its configuration"
        " does not name",
    ),
    (
        "pip install --prox=http://p.example:1 requests",
        "pip fetches packages through http://p.example:1, a proxy its configuration does not name",
    ),
    ("pip install --config-settings x=y .", SETTINGS.format("pip", "x=y")),
    ("pip install -Ccmake.args=-DX=1 .", SETTINGS.format("pip", "cmake.args=-DX=1")),
    ("pip install -qC setup-args=-Dx=1 .", SETTINGS.format("pip", "setup-args=-Dx=1")),
    ("pip install --global-option=--x .", SETTINGS.format("pip", "--x")),
    ("python3 -m pip install -C x=y .", SETTINGS.format("pip", "x=y")),
    ("uv pip install --config-setting x=y .", SETTINGS.format("uv", "x=y")),
    ("conda install -c evilchan numpy", CONDA.format("evilchan")),
    ("conda install --channel=evilchan numpy", CONDA.format("evilchan")),
    ("conda install -cevilchan numpy", CONDA.format("evilchan")),
    ("conda install --chan someone numpy", CONDA.format("someone")),
    ("conda install -y -c bioconda samtools", CONDA.format("bioconda")),
    ("conda install evilchan::numpy", CONDA.format("evilchan")),
    ("conda install 'numpy[channel=evilchan]'", CONDA.format("evilchan")),
    ("conda install -c user/label/dev numpy", CONDA.format("user/label/dev")),
]


@pytest.mark.parametrize(("command", "reason"), ASKED)
def test_trust_and_build_options_ask_under_an_allow_rule(
    command: str, reason: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"src/a.ts": "console.log(1)\n", "certs/ca.pem": "x\n", "ca.pem": "x\n"})
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision == Decision("ask", None, reason)


VARIABLES = [
    "DENO_DIR=/tmp/cache deno run src/a.ts",
    "DENO_DIR=/tmp/cache make",
    "DENO_CERT=ca.pem deno run src/a.ts",
    "DENO_TLS_CA_STORE=system deno run src/a.ts",
    "DENO_V8_FLAGS=--allow-natives-syntax deno run src/a.ts",
    "DENO_INSTALL_ROOT=/tmp/bin deno install -g x",
]


@pytest.mark.parametrize("command", VARIABLES)
def test_denos_variables_are_dangerous(command: str, make_ctx: ContextFactory) -> None:
    name = command.partition("=")[0]
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    reason = f"sets {name}, which changes what programs run or load"
    assert decision == Decision("ask", None, reason)


OUTSIDE = [
    "deno run --import-map={outside}/m.json src/a.ts",
    "deno run --config={outside}/deno.json src/a.ts",
    "deno run -c{outside}/deno.json src/a.ts",
    "deno run --cert {outside}/ca.pem src/a.ts",
]


@pytest.mark.parametrize("command", OUTSIDE)
def test_denos_files_outside_ask(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({"src/a.ts": "console.log(1)\n"})
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


ROUTINE = [
    "deno run src/a.ts",
    "deno run src/a.ts --cert=/x",
    "deno run --v8-flags=--max-old-space-size=4096 src/a.ts",
    "deno --v8-flags=--expose-gc src/a.ts",
    "deno run --inspect=127.0.0.1:9229 src/a.ts",
    "deno run --inspect src/a.ts",
    "deno test",
    "pip install requests",
    "pip install -e . --config-settings editable_mode=compat",
    "pip install --upgrade pip",
    "conda install numpy",
    "conda install -c conda-forge numpy",
    "conda install -c conda-forge/linux-64 numpy",
    "conda install -c defaults numpy",
    "conda install conda-forge::numpy",
    "conda install --override-channels -c defaults numpy",
]


@pytest.mark.parametrize("command", ROUTINE)
def test_routine_forms_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({"src/a.ts": "console.log(1)\n"})
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision

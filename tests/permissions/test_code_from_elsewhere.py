"""Code and hosts from elsewhere, by class: cargo's crate sources given as local URLs or
paths (`install --git file://`, `--index file://`), its unstable options and the rustc and
rustdoc options that run or load other programs; go's `work edit -use` and `mod edit
-replace` in either spelling; a container engine's host namespaces, bind mounts of host
paths outside the workspace (read-only too), builds and stacks from outside, env files,
remote daemons; git pointed at a directory or work tree outside the workspace, where a
repository made earlier in the same command would run its configuration."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree, assert_denied_in_every_mode

RULES = {
    "permissions": {
        "allow": ["Bash(cargo:*)", "Bash(go:*)", "Bash(docker:*)", "Bash(git:*)"],
    }
}
"""No deny rule: code not seen is then asked (with one, denied: `DENYING`)."""
DENYING = {"permissions": {**RULES["permissions"], "deny": ["Bash(wget:*)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "cargo install --git file://{outside}/crate",
        "cargo install --git file://{ws}/%2e%2e/outside/crate",
        "cargo install --git=file://{outside}/crate tool",
        "cargo install --index file://{outside}/index foo",
        "cargo install --index=sparse+file://{outside}/index foo",
        "cargo install --git {outside}/crate",
        "cargo rustc -- --extern helper={outside}/libhelper.so",
        "cargo rustc -- -L {outside}/libs",
        "cargo rustdoc -- --test-builder={outside}/fake",
        "cargo +{outside}/toolchain build",
        "go work edit -use {outside}/mod",
        "go work edit --use={outside}/mod",
        "go mod edit -replace example.com/x=../../outside/x",
        "go work edit -replace example.com/x=../elsewhere",
        "go tool {outside}/bin/tool",
        "go get {outside}/x",
        "docker run -v {outside}:/data:ro alpine ls /data",
        "docker run --mount type=bind,source={outside},target=/d,readonly alpine ls",
        "docker run -v {home}/docs:/docs alpine ls",
        "docker build {outside}",
        "docker build -f {outside}/Dockerfile .",
        "docker stack deploy --compose-file {outside}/stack.yml app",
        "docker compose --env-file={outside}/prod.env up -d",
        "git -C {outside} status",
        "git -C {outside}/new init && git -C {outside}/new log",
        "cd {outside} && git status",
        "git --work-tree={outside} diff",
        "git --work-tree {home}/docs status",
    ],
)
def test_code_from_elsewhere_is_asked(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "cargo +nightly -Zscript script.rs",
        "cargo +nightly -Z unstable-options -Z script x.rs",
        "cargo rustc -- -Zllvm-plugins=plugin.so",
        "cargo rustc -- -Z llvm_plugins=plugin.so",
        "cargo rustdoc -- --test-builder wget",
        "cargo test --doc -- --test-runtool=wget",
        "cargo install --registry $REG tool",
        "docker run --ipc=host alpine id",
        "docker run --uts host alpine hostname",
        "docker run --network=host alpine id",
        "docker run --net host alpine id",
        "docker run --network $NET alpine id",
        "docker -H ssh://build@ci.example ps",
        "docker -Hssh://build@ci.example ps",
        "docker --context far ps",
        "docker -c far run alpine id",
        "docker --host=tcp://10.0.0.5:2375 run alpine id",
        "docker context create far --docker host=ssh://u@far.example",
        "docker context create far --docker=host=tcp://far:2376,ca=x",
        "git -C {outside}/r init && git -C {outside}/r config core.fsmonitor 'wget x' "
        "&& git -C {outside}/r status",
    ],
)
def test_what_runs_unseen_meets_the_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    assert_denied_in_every_mode(tree.fill(command), make_ctx, DENYING)


@pytest.mark.parametrize(
    "command",
    [
        "cargo install ripgrep",
        "cargo +nightly build",
        "cargo test -- -Z unstable-options --format json",
        "cargo +nightly build -Z build-std",
        "go mod edit -replace example.com/x=example.com/y@v1.2.3",
        "go mod edit -replace example.com/x=./vendor/x",
        "go work edit -use ./tools",
        "go tool pprof cpu.out",
        "docker run --rm -v ./src:/src:ro alpine ls /src",
        "docker run --network mynet alpine id",
        "docker run alpine grep -Hn x /etc/hosts",
        "docker --context default ps",
        "docker run -c 512 alpine id",
        "go get ./...",
        "docker compose up -d",
        "docker compose --env-file .env.example config -q",
        "docker stack deploy -c compose.yml app",
        "docker context create local --docker host=unix:///var/run/docker.sock",
        "git -C src status",
        "git status",
        "git --work-tree=. status",
    ],
)
def test_the_workspace_stays_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    (tree.ws / "src" / "Dockerfile").write_text("FROM alpine\n")
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision

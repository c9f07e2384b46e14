"""Finding agent definitions: built-ins, the user's, the project's; broken files reported."""

from __future__ import annotations

from pathlib import Path

from tether.agents import (
    BUILTIN_AGENTS,
    AgentCatalog,
    AgentDefinition,
    UnusableAgent,
    agent_listing,
    discover_agents,
    task_description,
)
from tether.agents.listing import DESCRIPTION_CHARS, LISTING_CHARS

from .conftest import agent_text, write_agent


def test_builtins_alone(workspace: Path, home: Path) -> None:
    catalog = discover_agents(workspace, home=home)

    assert catalog == AgentCatalog(tuple(sorted(BUILTIN_AGENTS, key=lambda a: a.name.lower())), ())
    assert [(a.name, a.tools, a.read_only) for a in catalog.agents] == [
        ("Explore", ("Read", "Glob", "Grep", "Bash"), True),
        ("general-purpose", None, False),
        ("Plan", ("Read", "Glob", "Grep", "Bash"), True),
    ]


def test_user_then_claude_then_tether_directories_later_wins(workspace: Path, home: Path) -> None:
    user = write_agent(home / ".claude/agents", "review.md", agent_text("reviewer", "User's."))
    write_agent(home / ".claude/agents", "plan.md", agent_text("Plan", "User's plan."))
    claude = write_agent(workspace / ".claude/agents", "plan.md", agent_text("Plan", "Project's."))
    write_agent(workspace / ".claude/agents", "tester.md", agent_text("tester", "Claude's."))
    tether = write_agent(workspace / ".tether/agents", "t.md", agent_text("tester", "Tether's."))

    catalog = discover_agents(workspace, home=home)

    assert catalog.unusable == ()
    assert [a.name for a in catalog.agents] == [
        "Explore",
        "general-purpose",
        "Plan",
        "reviewer",
        "tester",
    ]
    assert catalog.get("reviewer") == AgentDefinition(
        name="reviewer",
        description="Does reviewer things.",
        system_prompt="User's.\n",
        path=user,
    )
    plan, tester = catalog.get("Plan"), catalog.get("tester")
    assert plan is not None
    assert (plan.system_prompt, plan.path, plan.read_only) == (
        "Project's.\n",
        claude,
        False,  # a definition replaces the built-in wholly
    )
    assert tester is not None
    assert (tester.system_prompt, tester.path) == ("Tether's.\n", tether)


def test_front_matter_fields(workspace: Path, home: Path) -> None:
    directory = workspace / ".claude/agents"
    text = (
        "---\n"
        "name: auditor_2\n"
        "description: >\n  Audits code\n  for security.\n"
        "tools: Read, Grep, Bash(git log *), Agent(Explore)\n"
        "disallowedTools: [Bash]\n"
        "model: haiku\n"
        "maxTurns: 12\n"
        "permissionMode: plan\n"
        "color: red\n"
        "---\n\nYou audit.\n\nCarefully.\n"
    )
    path = write_agent(directory, "auditor.md", text)
    inherit = write_agent(
        directory, "helper.md", agent_text("helper", tools="[Read, Read]", model="inherit")
    )

    catalog = discover_agents(workspace, home=home)

    assert catalog.get("auditor_2") == AgentDefinition(
        name="auditor_2",
        description="Audits code for security.",
        system_prompt="You audit.\n\nCarefully.\n",
        tools=("Read", "Grep", "Bash", "Task"),
        disallowed_tools=("Bash",),
        model="haiku",
        max_turns=12,
        read_only=True,
        path=path,
    )
    assert catalog.get("helper") == AgentDefinition(
        name="helper",
        description="Does helper things.",
        system_prompt="You help.\n",
        tools=("Read",),
        path=inherit,
    )


def test_broken_files_are_listed_with_reasons_never_raised(workspace: Path, home: Path) -> None:
    directory = workspace / ".claude/agents"
    files = {
        "a-no-front-matter.md": "Just a prompt.\n",
        "c-no-name.md": "---\ndescription: Nameless.\n---\nBody\n",
        "d-bad-name.md": "---\nname: plugin:agent\ndescription: D.\n---\nBody\n",
        "e-no-description.md": "---\nname: quiet\n---\nBody\n",
        "f-tools-number.md": "---\nname: numeric\ndescription: F.\ntools: 3\n---\nBody\n",
        "h-bad-turns.md": "---\nname: spinner\ndescription: H.\nmaxTurns: many\n---\nBody\n",
    }
    for name, text in files.items():
        write_agent(directory, name, text)
    write_agent(directory, "z-good.md", agent_text("good"))
    (directory / "notes.txt").write_text("not an agent")
    (directory / "sub").mkdir()

    catalog = discover_agents(workspace, home=home)

    assert "good" in catalog.names()
    assert len(catalog.agents) == len(BUILTIN_AGENTS) + 1
    assert [(u.path.name, u.reason) for u in catalog.unusable] == [
        ("a-no-front-matter.md", "no front matter: the file must start with a '---' line"),
        ("c-no-name.md", "'name' is missing"),
        (
            "d-bad-name.md",
            "the name 'plugin:agent' is not a valid agent name "
            "(printable text without ':', at most 200 characters)",
        ),
        ("e-no-description.md", "'description' is missing"),
        ("f-tools-number.md", "'tools' must be a comma-separated string or a list of tool names"),
        ("h-bad-turns.md", "'maxTurns' must be a positive whole number"),
    ]
    assert (
        catalog.notices()[1] == f"agent {directory / 'c-no-name.md'} is unusable: 'name' is missing"
    )


def test_names_and_bodies_claude_code_loads_are_loaded(workspace: Path, home: Path) -> None:
    """Claude Code loads an agent named with spaces or brackets (its front matter read as
    leniently), and one whose body is empty; the bundled CLI lists them all."""
    directory = workspace / ".claude/agents"
    write_agent(directory, "a.md", "---\nname: Code Reviewer\ndescription: A.\n---\nBody\n")
    write_agent(directory, "b.md", "---\nname: [unclosed\ndescription: B.\n---\nBody\n")
    write_agent(directory, "c.md", "---\nname: hollow\ndescription: C.\n---\n\n")

    catalog = discover_agents(workspace, home=home)

    assert catalog.unusable == ()
    assert {"Code Reviewer", "[unclosed", "hollow"} <= set(catalog.names())
    hollow = catalog.get("hollow")
    assert hollow is not None
    assert hollow.system_prompt.strip() == ""


def test_two_files_of_one_directory_with_the_same_name(workspace: Path, home: Path) -> None:
    directory = workspace / ".claude/agents"
    first = write_agent(directory, "a.md", agent_text("twin", "First."))
    second = write_agent(directory, "b.md", agent_text("twin", "Second."))

    catalog = discover_agents(workspace, home=home)

    twin = catalog.get("twin")
    assert twin is not None
    assert twin.path == second
    assert catalog.unusable == (UnusableAgent(first, "b.md defines 'twin' too"),)


def test_agent_listing_names_every_type_and_the_task_description_none(
    workspace: Path, home: Path
) -> None:
    write_agent(workspace / ".claude/agents", "r.md", agent_text("reviewer"))
    listing = agent_listing(discover_agents(workspace, home=home))

    assert listing is not None
    assert listing.splitlines()[1:] == ["- reviewer: Does reviewer things."]
    described = task_description().split("Agent types (subagent_type):\n")[1].splitlines()
    assert [line.split(":")[0] for line in described[:-1]] == [
        "- general-purpose",
        "- Explore",
        "- Plan",
    ]
    assert "reviewer" not in task_description()
    assert agent_listing(discover_agents(workspace / "none", home=home)) is None


def test_the_agent_listing_is_bounded_with_many_agents(workspace: Path, home: Path) -> None:
    long = "Use this agent when reviewing. " * 40
    for n in range(150):
        text = f"---\nname: agent-{n}\ndescription: {long}\n---\nYou help.\n"
        write_agent(workspace / ".claude/agents", f"a{n}.md", text)
    listing = agent_listing(discover_agents(workspace, home=home))

    assert listing is not None
    assert len(listing) <= LISTING_CHARS + 150 * len("agent-149, ")
    lines = listing.splitlines()
    assert all(len(line) <= DESCRIPTION_CHARS + len("- agent-149: ") for line in lines[:-1])
    assert "agent-149" in listing.splitlines()[-1]  # named, past the bound

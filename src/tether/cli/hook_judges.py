"""Who judges a session's `prompt` and `agent` hooks (`tether.hooks.judged`): the session's
model, or the one the hook names, asked once; for an agent hook, a read-only subagent (Read,
Grep, Glob; at most 50 model calls) whose final answer is the verdict. Hooks do not fire
inside it (a PreToolUse agent hook on Read would otherwise judge its own reads). What the
judges spend counts in the session's cost."""

from __future__ import annotations

import uuid
from dataclasses import replace

from tether.agents import AgentCatalog, SubagentRunner
from tether.agents.definitions import AgentDefinition
from tether.cli.agents_tool import SubagentModels
from tether.cli.client_parts import ClientParts
from tether.core.gate import ToolGate
from tether.core.loop import Agent
from tether.core.model_call import call_model
from tether.core.reply_fit import fit_reply
from tether.core.tool_calls import CallScope
from tether.hooks.judged import AGENT_MAX_TURNS, JUDGE_INSTRUCTIONS, HookJudge, JudgeFailed
from tether.hooks.spec import HookSpec
from tether.models.base import ModelRequest
from tether.protocol import HarnessError, Message, ModelError, ToolError, ToolUseBlock

JUDGE_AGENT = "hook-judge"
JUDGE_MAX_TOKENS = 4096
_JUDGE_TOOLS = ("Read", "Grep", "Glob")


def attach_hook_judges(
    gate: ToolGate, agent: Agent, models: SubagentModels, client: ClientParts
) -> None:
    """The session's hooks get their judge (`prompt` and `agent` hooks), and the client's
    callback and watchers (the SDK's own hooks)."""
    if gate.hooks is None:
        return
    gate.hooks.judge = hook_judge(agent, models)
    gate.hooks.callback = client.hook_callback
    gate.hooks.watchers.extend(client.hook_watchers)
    gate.hooks.background_tasks = agent.tool_context.background.in_flight


def hook_judge(agent: Agent, models: SubagentModels) -> HookJudge:
    """The judge for `agent`'s session; `models` resolves the model a hook names."""

    async def judge(spec: HookSpec, question: str) -> str:
        try:
            model, model_id = models(spec.model) if spec.model else (agent.model, agent.model_id)
        except HarnessError as exc:
            raise JudgeFailed(f"its model {spec.model!r}: {exc}") from None
        if spec.agent:
            return await _agent_verdict(agent, models, spec, question)
        request = ModelRequest(
            model=model_id,
            system=JUDGE_INSTRUCTIONS,
            messages=(Message.user_text(question),),
            max_tokens=JUDGE_MAX_TOKENS,
        )
        try:
            if model is agent.model:  # the session's window; another model's is not known
                request = fit_reply(agent, request)
            done = await call_model(model, request, lambda _event: None, agent.retry)
        except ModelError as exc:
            raise JudgeFailed(f"the model call failed: {exc}") from None
        agent.spend_aside(done.usage)
        return done.message.text()

    return judge


async def _agent_verdict(
    parent: Agent, models: SubagentModels, spec: HookSpec, question: str
) -> str:
    definition = AgentDefinition(
        name=JUDGE_AGENT,
        description="Judges a hook event",
        system_prompt=JUDGE_INSTRUCTIONS,
        tools=_JUDGE_TOOLS,
        model=spec.model,
        max_turns=AGENT_MAX_TURNS,
        read_only=True,
    )
    runner = SubagentRunner(AgentCatalog((definition,)), max_depth=99, resolve_model=models)
    call = ToolUseBlock(id=f"hook_{uuid.uuid4().hex[:12]}", name="Task", input={})
    scope = CallScope(agent=_without_hooks(parent), call=call, emit=lambda _event: None, ask=None)
    try:
        output = await runner.run(JUDGE_AGENT, question, scope)
    except ToolError as exc:
        raise JudgeFailed(str(exc)) from None
    structured = output.structured or {}
    content = structured.get("content") or [{"text": ""}]
    return str(content[0].get("text", ""))


def _without_hooks(parent: Agent) -> Agent:
    """`parent` with a gate that fires no hooks, for the judging subagent to derive from."""
    if parent.gate is None:
        return parent
    quiet = parent.gate.for_subagent(shell_cwd=None, read_only=True)
    quiet.hooks = None
    return replace(parent, gate=quiet)

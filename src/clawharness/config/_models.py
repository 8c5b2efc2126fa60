"""`models.providers`: the model providers and their models (transport, runtime policy,
prices), and the `agentRuntime` ref every scope uses."""

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from clawharness.config._factories import no_entries
from clawharness.config._node import PositiveInt, _empty, _Node
from clawharness.config.checks import check_base_url
from clawharness.config.spend import ModelCost

__all__ = [
    "AgentRuntimeRef",
    "ModelsConfig",
    "ProviderConfig",
    "ProviderModel",
    "RuntimePolicyConfig",
]


ProviderApi = Literal[
    "openai-responses", "openai-chatgpt-responses", "openai-completions", "anthropic-messages",
    "scripted",
]


BaseUrl = Annotated[str | None, AfterValidator(check_base_url)]


class AgentRuntimeRef(_Node):
    """`agentRuntime: {id}`: the runtime policy at one scope."""

    id: str | None = None


class RuntimePolicyConfig(_Node):
    """A provider route's declared runtime compatibility (absent = undeclared)."""

    compatible_ids: list[str] = Field(default_factory=_empty, alias="compatibleIds")


class ProviderModel(_Node):
    id: str
    name: str | None = None
    #: per-model transport overrides, as the original allows
    api: ProviderApi | None = None
    base_url: BaseUrl = Field(default=None, alias="baseUrl")
    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    context_window: PositiveInt | None = Field(default=None, alias="contextWindow")
    max_tokens: PositiveInt | None = Field(default=None, alias="maxTokens")
    params: dict[str, Any] | None = None
    headers: dict[str, str] | None = None
    #: whether the model reasons (OpenClaw's catalog flag): false takes only thinking `off`
    reasoning: bool | None = None
    #: USD per million tokens (OpenClaw's shape); overrides the price table
    cost: ModelCost | None = None


class ProviderConfig(_Node):
    base_url: BaseUrl = Field(default=None, alias="baseUrl")
    api: ProviderApi | None = None
    api_key: str | None = Field(default=None, alias="apiKey")
    headers: dict[str, str] | None = None
    agent_runtime: AgentRuntimeRef | None = Field(default=None, alias="agentRuntime")
    runtime_policy: RuntimePolicyConfig | None = Field(default=None, alias="runtimePolicy")
    request: dict[str, Any] | None = None
    models: list[ProviderModel] = Field(default_factory=_empty)
    #: the price of every model of this provider a model row does not price itself
    cost: ModelCost | None = None


class ModelsConfig(_Node):
    providers: dict[str, ProviderConfig] = Field(default_factory=no_entries)

    def context_window(self, model_ref: str) -> int | None:
        """The `contextWindow` of the `provider/model` ref's model row, None when the
        row gives none or there is no such row."""
        provider_id, _, model_id = model_ref.partition("/")
        provider = self.providers.get(provider_id)
        for model in provider.models if provider is not None else ():
            if model.id == model_id:
                return model.context_window
        return None

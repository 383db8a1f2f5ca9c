from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.outcome import Outcome
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.episodic_payload_environment import EpisodicPayloadEnvironment
    from ..models.timeline_entry import TimelineEntry
    from ..models.tool_call import ToolCall


T = TypeVar("T", bound="EpisodicPayload")


@_attrs_define
class EpisodicPayload:
    """
    Attributes:
        kind (Literal['episodic']):
        summary (str | Unset):  Default: ''.
        timeline (list[TimelineEntry] | Unset):
        tool_graph (list[ToolCall] | Unset):
        tool_graph_ref (None | str | Unset):
        environment (EpisodicPayloadEnvironment | Unset):
        outcome (None | Outcome | Unset):
        artifacts (list[str] | Unset):
    """

    kind: Literal["episodic"]
    summary: str | Unset = ""
    timeline: list[TimelineEntry] | Unset = UNSET
    tool_graph: list[ToolCall] | Unset = UNSET
    tool_graph_ref: None | str | Unset = UNSET
    environment: EpisodicPayloadEnvironment | Unset = UNSET
    outcome: None | Outcome | Unset = UNSET
    artifacts: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.episodic_payload_environment import EpisodicPayloadEnvironment  # noqa: PLC0415
        from ..models.timeline_entry import TimelineEntry  # noqa: PLC0415
        from ..models.tool_call import ToolCall  # noqa: PLC0415

        kind = self.kind

        summary = self.summary

        timeline: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.timeline, Unset):
            timeline = []
            for timeline_item_data in self.timeline:
                timeline_item = timeline_item_data.to_dict()
                timeline.append(timeline_item)

        tool_graph: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tool_graph, Unset):
            tool_graph = []
            for tool_graph_item_data in self.tool_graph:
                tool_graph_item = tool_graph_item_data.to_dict()
                tool_graph.append(tool_graph_item)

        tool_graph_ref: None | str | Unset
        if isinstance(self.tool_graph_ref, Unset):
            tool_graph_ref = UNSET
        else:
            tool_graph_ref = self.tool_graph_ref

        environment: dict[str, Any] | Unset = UNSET
        if not isinstance(self.environment, Unset):
            environment = self.environment.to_dict()

        outcome: None | str | Unset
        if isinstance(self.outcome, Unset):
            outcome = UNSET
        elif isinstance(self.outcome, Outcome):
            outcome = self.outcome.value
        else:
            outcome = self.outcome

        artifacts: list[str] | Unset = UNSET
        if not isinstance(self.artifacts, Unset):
            artifacts = self.artifacts

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if summary is not UNSET:
            field_dict["summary"] = summary
        if timeline is not UNSET:
            field_dict["timeline"] = timeline
        if tool_graph is not UNSET:
            field_dict["tool_graph"] = tool_graph
        if tool_graph_ref is not UNSET:
            field_dict["tool_graph_ref"] = tool_graph_ref
        if environment is not UNSET:
            field_dict["environment"] = environment
        if outcome is not UNSET:
            field_dict["outcome"] = outcome
        if artifacts is not UNSET:
            field_dict["artifacts"] = artifacts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.episodic_payload_environment import EpisodicPayloadEnvironment  # noqa: PLC0415
        from ..models.timeline_entry import TimelineEntry  # noqa: PLC0415
        from ..models.tool_call import ToolCall  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["episodic"], d.pop("kind"))
        if kind != "episodic":
            raise ValueError(f"kind must match const 'episodic', got '{kind}'")

        summary = d.pop("summary", UNSET)

        _timeline = d.pop("timeline", UNSET)
        timeline: list[TimelineEntry] | Unset = UNSET
        if _timeline is not UNSET:
            timeline = []
            for timeline_item_data in _timeline:
                timeline_item = TimelineEntry.from_dict(timeline_item_data)

                timeline.append(timeline_item)

        _tool_graph = d.pop("tool_graph", UNSET)
        tool_graph: list[ToolCall] | Unset = UNSET
        if _tool_graph is not UNSET:
            tool_graph = []
            for tool_graph_item_data in _tool_graph:
                tool_graph_item = ToolCall.from_dict(tool_graph_item_data)

                tool_graph.append(tool_graph_item)

        def _parse_tool_graph_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_graph_ref = _parse_tool_graph_ref(d.pop("tool_graph_ref", UNSET))

        _environment = d.pop("environment", UNSET)
        environment: EpisodicPayloadEnvironment | Unset
        if isinstance(_environment, Unset):
            environment = UNSET
        else:
            environment = EpisodicPayloadEnvironment.from_dict(_environment)

        def _parse_outcome(data: object) -> None | Outcome | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                outcome_type_0 = Outcome(data)

                return outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Outcome | Unset, data)

        outcome = _parse_outcome(d.pop("outcome", UNSET))

        artifacts = cast(list[str], d.pop("artifacts", UNSET))

        episodic_payload = cls(
            kind=kind,
            summary=summary,
            timeline=timeline,
            tool_graph=tool_graph,
            tool_graph_ref=tool_graph_ref,
            environment=environment,
            outcome=outcome,
            artifacts=artifacts,
        )

        return episodic_payload

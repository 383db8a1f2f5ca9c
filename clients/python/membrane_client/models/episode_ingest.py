from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.outcome import Outcome
from ..models.sensitivity import Sensitivity
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.episode_ingest_context import EpisodeIngestContext
    from ..models.episode_ingest_environment import EpisodeIngestEnvironment
    from ..models.timeline_entry import TimelineEntry
    from ..models.tool_call import ToolCall


T = TypeVar("T", bound="EpisodeIngest")


@_attrs_define
class EpisodeIngest:
    """
    Attributes:
        source (str): Who or what produced the experience (agent, tool).
        summary (str):
        scope (None | str | Unset):
        tags (list[str] | Unset):
        sensitivity (None | Sensitivity | Unset):
        timestamp (datetime.datetime | None | Unset):
        reason_to_remember (None | str | Unset):
        context (EpisodeIngestContext | Unset):
        timeline (list[TimelineEntry] | Unset):
        tool_graph (list[ToolCall] | Unset):
        tool_graph_ref (None | str | Unset):
        environment (EpisodeIngestEnvironment | Unset):
        outcome (None | Outcome | Unset):
        artifacts (list[str] | Unset):
        entities (list[Any] | Unset):
    """

    source: str
    summary: str
    scope: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    sensitivity: None | Sensitivity | Unset = UNSET
    timestamp: datetime.datetime | None | Unset = UNSET
    reason_to_remember: None | str | Unset = UNSET
    context: EpisodeIngestContext | Unset = UNSET
    timeline: list[TimelineEntry] | Unset = UNSET
    tool_graph: list[ToolCall] | Unset = UNSET
    tool_graph_ref: None | str | Unset = UNSET
    environment: EpisodeIngestEnvironment | Unset = UNSET
    outcome: None | Outcome | Unset = UNSET
    artifacts: list[str] | Unset = UNSET
    entities: list[Any] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.episode_ingest_context import EpisodeIngestContext  # noqa: PLC0415
        from ..models.episode_ingest_environment import EpisodeIngestEnvironment  # noqa: PLC0415
        from ..models.timeline_entry import TimelineEntry  # noqa: PLC0415
        from ..models.tool_call import ToolCall  # noqa: PLC0415

        source = self.source

        summary = self.summary

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags

        sensitivity: None | str | Unset
        if isinstance(self.sensitivity, Unset):
            sensitivity = UNSET
        elif isinstance(self.sensitivity, Sensitivity):
            sensitivity = self.sensitivity.value
        else:
            sensitivity = self.sensitivity

        timestamp: None | str | Unset
        if isinstance(self.timestamp, Unset):
            timestamp = UNSET
        elif isinstance(self.timestamp, datetime.datetime):
            timestamp = self.timestamp.isoformat()
        else:
            timestamp = self.timestamp

        reason_to_remember: None | str | Unset
        if isinstance(self.reason_to_remember, Unset):
            reason_to_remember = UNSET
        else:
            reason_to_remember = self.reason_to_remember

        context: dict[str, Any] | Unset = UNSET
        if not isinstance(self.context, Unset):
            context = self.context.to_dict()

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

        entities: list[Any] | Unset = UNSET
        if not isinstance(self.entities, Unset):
            entities = self.entities

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "source": source,
                "summary": summary,
            }
        )
        if scope is not UNSET:
            field_dict["scope"] = scope
        if tags is not UNSET:
            field_dict["tags"] = tags
        if sensitivity is not UNSET:
            field_dict["sensitivity"] = sensitivity
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp
        if reason_to_remember is not UNSET:
            field_dict["reason_to_remember"] = reason_to_remember
        if context is not UNSET:
            field_dict["context"] = context
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
        if entities is not UNSET:
            field_dict["entities"] = entities

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.episode_ingest_context import EpisodeIngestContext  # noqa: PLC0415
        from ..models.episode_ingest_environment import EpisodeIngestEnvironment  # noqa: PLC0415
        from ..models.timeline_entry import TimelineEntry  # noqa: PLC0415
        from ..models.tool_call import ToolCall  # noqa: PLC0415

        d = dict(src_dict)
        source = d.pop("source")

        summary = d.pop("summary")

        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        tags = cast(list[str], d.pop("tags", UNSET))

        def _parse_sensitivity(data: object) -> None | Sensitivity | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sensitivity_type_0 = Sensitivity(data)

                return sensitivity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Sensitivity | Unset, data)

        sensitivity = _parse_sensitivity(d.pop("sensitivity", UNSET))

        def _parse_timestamp(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                timestamp_type_0 = datetime.datetime.fromisoformat(data)

                return timestamp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        timestamp = _parse_timestamp(d.pop("timestamp", UNSET))

        def _parse_reason_to_remember(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason_to_remember = _parse_reason_to_remember(d.pop("reason_to_remember", UNSET))

        _context = d.pop("context", UNSET)
        context: EpisodeIngestContext | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = EpisodeIngestContext.from_dict(_context)

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
        environment: EpisodeIngestEnvironment | Unset
        if isinstance(_environment, Unset):
            environment = UNSET
        else:
            environment = EpisodeIngestEnvironment.from_dict(_environment)

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

        entities = cast(list[Any], d.pop("entities", UNSET))

        episode_ingest = cls(
            source=source,
            summary=summary,
            scope=scope,
            tags=tags,
            sensitivity=sensitivity,
            timestamp=timestamp,
            reason_to_remember=reason_to_remember,
            context=context,
            timeline=timeline,
            tool_graph=tool_graph,
            tool_graph_ref=tool_graph_ref,
            environment=environment,
            outcome=outcome,
            artifacts=artifacts,
            entities=entities,
        )

        return episode_ingest

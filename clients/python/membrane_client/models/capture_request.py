from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_type import MemoryType
from ..models.sensitivity import Sensitivity
from ..models.source_kind import SourceKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capture_request_context import CaptureRequestContext


T = TypeVar("T", bound="CaptureRequest")


@_attrs_define
class CaptureRequest:
    """CaptureMemory: raw experience in; typed records, entities and edges out.

    `content` may carry `subject`/`predicate`/`object` (a derived semantic fact),
    `entities` (names, or objects with `name`, `types`, `aliases`), and for
    `working_state` the working-memory fields; an `episode` carries `timeline`,
    `tool_graph`, `outcome`, `environment`, `artifacts`.

        Attributes:
            source (str): Who or what produced the experience (agent, tool).
            source_kind (SourceKind):
            scope (None | str | Unset):
            tags (list[str] | Unset):
            sensitivity (None | Sensitivity | Unset):
            timestamp (datetime.datetime | None | Unset):
            reason_to_remember (None | str | Unset):
            context (CaptureRequestContext | Unset):
            content (Any | Unset):
            proposed_type (MemoryType | None | Unset):
            summary (None | str | Unset):
    """

    source: str
    source_kind: SourceKind
    scope: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    sensitivity: None | Sensitivity | Unset = UNSET
    timestamp: datetime.datetime | None | Unset = UNSET
    reason_to_remember: None | str | Unset = UNSET
    context: CaptureRequestContext | Unset = UNSET
    content: Any | Unset = UNSET
    proposed_type: MemoryType | None | Unset = UNSET
    summary: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.capture_request_context import CaptureRequestContext  # noqa: PLC0415

        source = self.source

        source_kind = self.source_kind.value

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

        content = self.content

        proposed_type: None | str | Unset
        if isinstance(self.proposed_type, Unset):
            proposed_type = UNSET
        elif isinstance(self.proposed_type, MemoryType):
            proposed_type = self.proposed_type.value
        else:
            proposed_type = self.proposed_type

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "source": source,
                "source_kind": source_kind,
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
        if content is not UNSET:
            field_dict["content"] = content
        if proposed_type is not UNSET:
            field_dict["proposed_type"] = proposed_type
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capture_request_context import CaptureRequestContext  # noqa: PLC0415

        d = dict(src_dict)
        source = d.pop("source")

        source_kind = SourceKind(d.pop("source_kind"))

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
        context: CaptureRequestContext | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = CaptureRequestContext.from_dict(_context)

        content = d.pop("content", UNSET)

        def _parse_proposed_type(data: object) -> MemoryType | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                proposed_type_type_0 = MemoryType(data)

                return proposed_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemoryType | None | Unset, data)

        proposed_type = _parse_proposed_type(d.pop("proposed_type", UNSET))

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        capture_request = cls(
            source=source,
            source_kind=source_kind,
            scope=scope,
            tags=tags,
            sensitivity=sensitivity,
            timestamp=timestamp,
            reason_to_remember=reason_to_remember,
            context=context,
            content=content,
            proposed_type=proposed_type,
            summary=summary,
        )

        return capture_request

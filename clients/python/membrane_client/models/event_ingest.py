from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sensitivity import Sensitivity
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.event_ingest_context import EventIngestContext
    from ..models.event_ingest_data import EventIngestData


T = TypeVar("T", bound="EventIngest")


@_attrs_define
class EventIngest:
    """The original's event: `event_kind` (alias `event_type`), `ref`, `summary`.

    Attributes:
        source (str): Who or what produced the experience (agent, tool).
        summary (str):
        scope (None | str | Unset):
        tags (list[str] | Unset):
        sensitivity (None | Sensitivity | Unset):
        timestamp (datetime.datetime | None | Unset):
        reason_to_remember (None | str | Unset):
        context (EventIngestContext | Unset):
        event_kind (str | Unset): Synonym of `event_type`. Default: `event_type`, else 'event'.
        event_type (str | Unset): Synonym of `event_kind`. Default: `event_kind`, else 'event'.
        ref (None | str | Unset):
        data (EventIngestData | Unset):
        entities (list[Any] | Unset):
    """

    source: str
    summary: str
    scope: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    sensitivity: None | Sensitivity | Unset = UNSET
    timestamp: datetime.datetime | None | Unset = UNSET
    reason_to_remember: None | str | Unset = UNSET
    context: EventIngestContext | Unset = UNSET
    event_kind: str | Unset = UNSET
    event_type: str | Unset = UNSET
    ref: None | str | Unset = UNSET
    data: EventIngestData | Unset = UNSET
    entities: list[Any] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.event_ingest_context import EventIngestContext  # noqa: PLC0415
        from ..models.event_ingest_data import EventIngestData  # noqa: PLC0415

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

        event_kind = self.event_kind

        event_type = self.event_type

        ref: None | str | Unset
        if isinstance(self.ref, Unset):
            ref = UNSET
        else:
            ref = self.ref

        data: dict[str, Any] | Unset = UNSET
        if not isinstance(self.data, Unset):
            data = self.data.to_dict()

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
        if event_kind is not UNSET:
            field_dict["event_kind"] = event_kind
        if event_type is not UNSET:
            field_dict["event_type"] = event_type
        if ref is not UNSET:
            field_dict["ref"] = ref
        if data is not UNSET:
            field_dict["data"] = data
        if entities is not UNSET:
            field_dict["entities"] = entities

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_ingest_context import EventIngestContext  # noqa: PLC0415
        from ..models.event_ingest_data import EventIngestData  # noqa: PLC0415

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
        context: EventIngestContext | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = EventIngestContext.from_dict(_context)

        event_kind = d.pop("event_kind", UNSET)

        event_type = d.pop("event_type", UNSET)

        def _parse_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ref = _parse_ref(d.pop("ref", UNSET))

        _data = d.pop("data", UNSET)
        data: EventIngestData | Unset
        if isinstance(_data, Unset):
            data = UNSET
        else:
            data = EventIngestData.from_dict(_data)

        entities = cast(list[Any], d.pop("entities", UNSET))

        event_ingest = cls(
            source=source,
            summary=summary,
            scope=scope,
            tags=tags,
            sensitivity=sensitivity,
            timestamp=timestamp,
            reason_to_remember=reason_to_remember,
            context=context,
            event_kind=event_kind,
            event_type=event_type,
            ref=ref,
            data=data,
            entities=entities,
        )

        return event_ingest

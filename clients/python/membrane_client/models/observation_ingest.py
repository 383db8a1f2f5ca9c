from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sensitivity import Sensitivity
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.observation_ingest_context import ObservationIngestContext
    from ..models.observation_ingest_data import ObservationIngestData


T = TypeVar("T", bound="ObservationIngest")


@_attrs_define
class ObservationIngest:
    """
    Attributes:
        source (str): Who or what produced the experience (agent, tool).
        scope (None | str | Unset):
        tags (list[str] | Unset):
        sensitivity (None | Sensitivity | Unset):
        timestamp (datetime.datetime | None | Unset):
        reason_to_remember (None | str | Unset):
        context (ObservationIngestContext | Unset):
        summary (None | str | Unset):
        subject (None | str | Unset):
        predicate (None | str | Unset):
        object_ (Any | Unset):
        data (ObservationIngestData | Unset):
        entities (list[Any] | Unset):
    """

    source: str
    scope: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    sensitivity: None | Sensitivity | Unset = UNSET
    timestamp: datetime.datetime | None | Unset = UNSET
    reason_to_remember: None | str | Unset = UNSET
    context: ObservationIngestContext | Unset = UNSET
    summary: None | str | Unset = UNSET
    subject: None | str | Unset = UNSET
    predicate: None | str | Unset = UNSET
    object_: Any | Unset = UNSET
    data: ObservationIngestData | Unset = UNSET
    entities: list[Any] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.observation_ingest_context import ObservationIngestContext  # noqa: PLC0415
        from ..models.observation_ingest_data import ObservationIngestData  # noqa: PLC0415

        source = self.source

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

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        predicate: None | str | Unset
        if isinstance(self.predicate, Unset):
            predicate = UNSET
        else:
            predicate = self.predicate

        object_ = self.object_

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
        if summary is not UNSET:
            field_dict["summary"] = summary
        if subject is not UNSET:
            field_dict["subject"] = subject
        if predicate is not UNSET:
            field_dict["predicate"] = predicate
        if object_ is not UNSET:
            field_dict["object"] = object_
        if data is not UNSET:
            field_dict["data"] = data
        if entities is not UNSET:
            field_dict["entities"] = entities

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.observation_ingest_context import ObservationIngestContext  # noqa: PLC0415
        from ..models.observation_ingest_data import ObservationIngestData  # noqa: PLC0415

        d = dict(src_dict)
        source = d.pop("source")

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
        context: ObservationIngestContext | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = ObservationIngestContext.from_dict(_context)

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        def _parse_predicate(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        predicate = _parse_predicate(d.pop("predicate", UNSET))

        object_ = d.pop("object", UNSET)

        _data = d.pop("data", UNSET)
        data: ObservationIngestData | Unset
        if isinstance(_data, Unset):
            data = UNSET
        else:
            data = ObservationIngestData.from_dict(_data)

        entities = cast(list[Any], d.pop("entities", UNSET))

        observation_ingest = cls(
            source=source,
            scope=scope,
            tags=tags,
            sensitivity=sensitivity,
            timestamp=timestamp,
            reason_to_remember=reason_to_remember,
            context=context,
            summary=summary,
            subject=subject,
            predicate=predicate,
            object_=object_,
            data=data,
            entities=entities,
        )

        return observation_ingest

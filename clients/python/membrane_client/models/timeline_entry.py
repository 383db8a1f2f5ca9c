from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.timeline_entry_data import TimelineEntryData


T = TypeVar("T", bound="TimelineEntry")


@_attrs_define
class TimelineEntry:
    """The original's TimelineEvent (t, event_kind, ref, summary). `event_type` is
    today's name for `event_kind`: either is accepted and both are returned. `data`
    (structured detail) is Membrane's own, next to the original's `ref`.

        Attributes:
            t (datetime.datetime | None | Unset):
            event_kind (str | Unset): Synonym of `event_type`. Default: `event_type`, else 'event'.
            event_type (str | Unset): Synonym of `event_kind`. Default: `event_kind`, else 'event'.
            ref (None | str | Unset):
            summary (str | Unset):  Default: ''.
            data (TimelineEntryData | Unset):
    """

    t: datetime.datetime | None | Unset = UNSET
    event_kind: str | Unset = UNSET
    event_type: str | Unset = UNSET
    ref: None | str | Unset = UNSET
    summary: str | Unset = ""
    data: TimelineEntryData | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.timeline_entry_data import TimelineEntryData  # noqa: PLC0415

        t: None | str | Unset
        if isinstance(self.t, Unset):
            t = UNSET
        elif isinstance(self.t, datetime.datetime):
            t = self.t.isoformat()
        else:
            t = self.t

        event_kind = self.event_kind

        event_type = self.event_type

        ref: None | str | Unset
        if isinstance(self.ref, Unset):
            ref = UNSET
        else:
            ref = self.ref

        summary = self.summary

        data: dict[str, Any] | Unset = UNSET
        if not isinstance(self.data, Unset):
            data = self.data.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if t is not UNSET:
            field_dict["t"] = t
        if event_kind is not UNSET:
            field_dict["event_kind"] = event_kind
        if event_type is not UNSET:
            field_dict["event_type"] = event_type
        if ref is not UNSET:
            field_dict["ref"] = ref
        if summary is not UNSET:
            field_dict["summary"] = summary
        if data is not UNSET:
            field_dict["data"] = data

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.timeline_entry_data import TimelineEntryData  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_t(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                t_type_0 = datetime.datetime.fromisoformat(data)

                return t_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        t = _parse_t(d.pop("t", UNSET))

        event_kind = d.pop("event_kind", UNSET)

        event_type = d.pop("event_type", UNSET)

        def _parse_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ref = _parse_ref(d.pop("ref", UNSET))

        summary = d.pop("summary", UNSET)

        _data = d.pop("data", UNSET)
        data: TimelineEntryData | Unset
        if isinstance(_data, Unset):
            data = UNSET
        else:
            data = TimelineEntryData.from_dict(_data)

        timeline_entry = cls(
            t=t,
            event_kind=event_kind,
            event_type=event_type,
            ref=ref,
            summary=summary,
            data=data,
        )

        return timeline_entry

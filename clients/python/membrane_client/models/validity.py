from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.validity_mode_type_0 import ValidityModeType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.validity_conditions import ValidityConditions


T = TypeVar("T", bound="Validity")


@_attrs_define
class Validity:
    """The original's validity: `mode` defaults to timeboxed when a window is given,
    else global.

        Attributes:
            mode (None | Unset | ValidityModeType0):
            conditions (ValidityConditions | Unset):
            start (datetime.datetime | None | Unset):
            end (datetime.datetime | None | Unset):
    """

    mode: None | Unset | ValidityModeType0 = UNSET
    conditions: ValidityConditions | Unset = UNSET
    start: datetime.datetime | None | Unset = UNSET
    end: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.validity_conditions import ValidityConditions  # noqa: PLC0415

        mode: None | str | Unset
        if isinstance(self.mode, Unset):
            mode = UNSET
        elif isinstance(self.mode, ValidityModeType0):
            mode = self.mode.value
        else:
            mode = self.mode

        conditions: dict[str, Any] | Unset = UNSET
        if not isinstance(self.conditions, Unset):
            conditions = self.conditions.to_dict()

        start: None | str | Unset
        if isinstance(self.start, Unset):
            start = UNSET
        elif isinstance(self.start, datetime.datetime):
            start = self.start.isoformat()
        else:
            start = self.start

        end: None | str | Unset
        if isinstance(self.end, Unset):
            end = UNSET
        elif isinstance(self.end, datetime.datetime):
            end = self.end.isoformat()
        else:
            end = self.end

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if mode is not UNSET:
            field_dict["mode"] = mode
        if conditions is not UNSET:
            field_dict["conditions"] = conditions
        if start is not UNSET:
            field_dict["start"] = start
        if end is not UNSET:
            field_dict["end"] = end

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.validity_conditions import ValidityConditions  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_mode(data: object) -> None | Unset | ValidityModeType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mode_type_0 = ValidityModeType0(data)

                return mode_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | ValidityModeType0, data)

        mode = _parse_mode(d.pop("mode", UNSET))

        _conditions = d.pop("conditions", UNSET)
        conditions: ValidityConditions | Unset
        if isinstance(_conditions, Unset):
            conditions = UNSET
        else:
            conditions = ValidityConditions.from_dict(_conditions)

        def _parse_start(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                start_type_0 = datetime.datetime.fromisoformat(data)

                return start_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        start = _parse_start(d.pop("start", UNSET))

        def _parse_end(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                end_type_0 = datetime.datetime.fromisoformat(data)

                return end_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        end = _parse_end(d.pop("end", UNSET))

        validity = cls(
            mode=mode,
            conditions=conditions,
            start=start,
            end=end,
        )

        return validity

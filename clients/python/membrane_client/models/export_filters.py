from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_type import MemoryType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ExportFilters")


@_attrs_define
class ExportFilters:
    """Which records an export holds (every field narrows; empty: no limit).

    Attributes:
        scopes (list[str] | Unset):
        types (list[MemoryType] | Unset):
        created_after (datetime.datetime | None | Unset):
        created_before (datetime.datetime | None | Unset):
        include_embeddings (bool | Unset):  Default: False.
    """

    scopes: list[str] | Unset = UNSET
    types: list[MemoryType] | Unset = UNSET
    created_after: datetime.datetime | None | Unset = UNSET
    created_before: datetime.datetime | None | Unset = UNSET
    include_embeddings: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        scopes: list[str] | Unset = UNSET
        if not isinstance(self.scopes, Unset):
            scopes = self.scopes

        types: list[str] | Unset = UNSET
        if not isinstance(self.types, Unset):
            types = []
            for types_item_data in self.types:
                types_item = types_item_data.value
                types.append(types_item)

        created_after: None | str | Unset
        if isinstance(self.created_after, Unset):
            created_after = UNSET
        elif isinstance(self.created_after, datetime.datetime):
            created_after = self.created_after.isoformat()
        else:
            created_after = self.created_after

        created_before: None | str | Unset
        if isinstance(self.created_before, Unset):
            created_before = UNSET
        elif isinstance(self.created_before, datetime.datetime):
            created_before = self.created_before.isoformat()
        else:
            created_before = self.created_before

        include_embeddings = self.include_embeddings

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if scopes is not UNSET:
            field_dict["scopes"] = scopes
        if types is not UNSET:
            field_dict["types"] = types
        if created_after is not UNSET:
            field_dict["created_after"] = created_after
        if created_before is not UNSET:
            field_dict["created_before"] = created_before
        if include_embeddings is not UNSET:
            field_dict["include_embeddings"] = include_embeddings

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        scopes = cast(list[str], d.pop("scopes", UNSET))

        _types = d.pop("types", UNSET)
        types: list[MemoryType] | Unset = UNSET
        if _types is not UNSET:
            types = []
            for types_item_data in _types:
                types_item = MemoryType(types_item_data)

                types.append(types_item)

        def _parse_created_after(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_after_type_0 = datetime.datetime.fromisoformat(data)

                return created_after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        created_after = _parse_created_after(d.pop("created_after", UNSET))

        def _parse_created_before(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_before_type_0 = datetime.datetime.fromisoformat(data)

                return created_before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        created_before = _parse_created_before(d.pop("created_before", UNSET))

        include_embeddings = d.pop("include_embeddings", UNSET)

        export_filters = cls(
            scopes=scopes,
            types=types,
            created_after=created_after,
            created_before=created_before,
            include_embeddings=include_embeddings,
        )

        return export_filters

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_type import MemoryType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ForgetRequest")


@_attrs_define
class ForgetRequest:
    """Every record matching all the given conditions that the caller may write is
    deleted, with its edges (both directions), vectors, tags, provenance, entity names
    and queue entries.

        Attributes:
            scope (None | str | Unset): The scope to forget in. Required unless the caller is an admin (an admin without a
                scope forgets across every scope it may write).
            types (list[MemoryType] | Unset): Only records of these types.
            tags (list[str] | Unset): Records carrying ALL these tags.
            created_after (datetime.datetime | None | Unset): Created at or after.
            created_before (datetime.datetime | None | Unset): Created before.
            entity (None | str | Unset): An entity record's id: that entity and every record that mentions it or has it as a
                fact's subject or object. An id that names no entity record the caller may read answers 422.
            erase (bool | Unset): Also remove the records' content from the audit log (rationales and details; ids, actions,
                actors and times stay), from stored Idempotency-Key answers and from the search text other records borrowed from
                them. Default: False.
            dry_run (bool | Unset): Count only; change nothing. Default: False.
            rationale (None | str | Unset): Kept in each `delete` audit entry (not with erase).
    """

    scope: None | str | Unset = UNSET
    types: list[MemoryType] | Unset = UNSET
    tags: list[str] | Unset = UNSET
    created_after: datetime.datetime | None | Unset = UNSET
    created_before: datetime.datetime | None | Unset = UNSET
    entity: None | str | Unset = UNSET
    erase: bool | Unset = False
    dry_run: bool | Unset = False
    rationale: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope

        types: list[str] | Unset = UNSET
        if not isinstance(self.types, Unset):
            types = []
            for types_item_data in self.types:
                types_item = types_item_data.value
                types.append(types_item)

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags

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

        entity: None | str | Unset
        if isinstance(self.entity, Unset):
            entity = UNSET
        else:
            entity = self.entity

        erase = self.erase

        dry_run = self.dry_run

        rationale: None | str | Unset
        if isinstance(self.rationale, Unset):
            rationale = UNSET
        else:
            rationale = self.rationale

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if scope is not UNSET:
            field_dict["scope"] = scope
        if types is not UNSET:
            field_dict["types"] = types
        if tags is not UNSET:
            field_dict["tags"] = tags
        if created_after is not UNSET:
            field_dict["created_after"] = created_after
        if created_before is not UNSET:
            field_dict["created_before"] = created_before
        if entity is not UNSET:
            field_dict["entity"] = entity
        if erase is not UNSET:
            field_dict["erase"] = erase
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if rationale is not UNSET:
            field_dict["rationale"] = rationale

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        _types = d.pop("types", UNSET)
        types: list[MemoryType] | Unset = UNSET
        if _types is not UNSET:
            types = []
            for types_item_data in _types:
                types_item = MemoryType(types_item_data)

                types.append(types_item)

        tags = cast(list[str], d.pop("tags", UNSET))

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

        def _parse_entity(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        entity = _parse_entity(d.pop("entity", UNSET))

        erase = d.pop("erase", UNSET)

        dry_run = d.pop("dry_run", UNSET)

        def _parse_rationale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rationale = _parse_rationale(d.pop("rationale", UNSET))

        forget_request = cls(
            scope=scope,
            types=types,
            tags=tags,
            created_after=created_after,
            created_before=created_before,
            entity=entity,
            erase=erase,
            dry_run=dry_run,
            rationale=rationale,
        )

        return forget_request

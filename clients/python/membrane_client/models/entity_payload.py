from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.entity_payload_identifiers import EntityPayloadIdentifiers


T = TypeVar("T", bound="EntityPayload")


@_attrs_define
class EntityPayload:
    """`primary_type` and `summary` are the original's; a primary type missing from
    `types` is put first in it.

        Attributes:
            kind (Literal['entity']):
            canonical_name (str):
            primary_type (None | str | Unset):
            types (list[str] | Unset):
            aliases (list[str] | Unset):
            identifiers (EntityPayloadIdentifiers | Unset):
            summary (None | str | Unset):
    """

    kind: Literal["entity"]
    canonical_name: str
    primary_type: None | str | Unset = UNSET
    types: list[str] | Unset = UNSET
    aliases: list[str] | Unset = UNSET
    identifiers: EntityPayloadIdentifiers | Unset = UNSET
    summary: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.entity_payload_identifiers import EntityPayloadIdentifiers  # noqa: PLC0415

        kind = self.kind

        canonical_name = self.canonical_name

        primary_type: None | str | Unset
        if isinstance(self.primary_type, Unset):
            primary_type = UNSET
        else:
            primary_type = self.primary_type

        types: list[str] | Unset = UNSET
        if not isinstance(self.types, Unset):
            types = self.types

        aliases: list[str] | Unset = UNSET
        if not isinstance(self.aliases, Unset):
            aliases = self.aliases

        identifiers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.identifiers, Unset):
            identifiers = self.identifiers.to_dict()

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "canonical_name": canonical_name,
            }
        )
        if primary_type is not UNSET:
            field_dict["primary_type"] = primary_type
        if types is not UNSET:
            field_dict["types"] = types
        if aliases is not UNSET:
            field_dict["aliases"] = aliases
        if identifiers is not UNSET:
            field_dict["identifiers"] = identifiers
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.entity_payload_identifiers import EntityPayloadIdentifiers  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["entity"], d.pop("kind"))
        if kind != "entity":
            raise ValueError(f"kind must match const 'entity', got '{kind}'")

        canonical_name = d.pop("canonical_name")

        def _parse_primary_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        primary_type = _parse_primary_type(d.pop("primary_type", UNSET))

        types = cast(list[str], d.pop("types", UNSET))

        aliases = cast(list[str], d.pop("aliases", UNSET))

        _identifiers = d.pop("identifiers", UNSET)
        identifiers: EntityPayloadIdentifiers | Unset
        if isinstance(_identifiers, Unset):
            identifiers = UNSET
        else:
            identifiers = EntityPayloadIdentifiers.from_dict(_identifiers)

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        entity_payload = cls(
            kind=kind,
            canonical_name=canonical_name,
            primary_type=primary_type,
            types=types,
            aliases=aliases,
            identifiers=identifiers,
            summary=summary,
        )

        return entity_payload

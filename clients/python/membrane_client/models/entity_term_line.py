from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="EntityTermLine")


@_attrs_define
class EntityTermLine:
    """A normalized name or alias an entity record is resolved by.

    Attributes:
        record_id (str): A record id: a lowercase UUID, as the service issues them.
        term (str):
        kind (Literal['entity_term'] | Unset):  Default: 'entity_term'.
        scope (str | Unset):  Default: ''.
    """

    record_id: str
    term: str
    kind: Literal["entity_term"] | Unset = "entity_term"
    scope: str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        record_id = self.record_id

        term = self.term

        kind = self.kind

        scope = self.scope

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "record_id": record_id,
                "term": term,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if scope is not UNSET:
            field_dict["scope"] = scope

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        record_id = d.pop("record_id")

        term = d.pop("term")

        kind = cast(Literal["entity_term"] | Unset, d.pop("kind", UNSET))
        if kind != "entity_term" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'entity_term', got '{kind}'")

        scope = d.pop("scope", UNSET)

        entity_term_line = cls(
            record_id=record_id,
            term=term,
            kind=kind,
            scope=scope,
        )

        return entity_term_line

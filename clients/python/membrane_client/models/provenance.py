from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.provenance_source import ProvenanceSource


T = TypeVar("T", bound="Provenance")


@_attrs_define
class Provenance:
    """
    Attributes:
        sources (list[ProvenanceSource] | Unset):
        created_by (None | str | Unset):
    """

    sources: list[ProvenanceSource] | Unset = UNSET
    created_by: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.provenance_source import ProvenanceSource  # noqa: PLC0415

        sources: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.sources, Unset):
            sources = []
            for sources_item_data in self.sources:
                sources_item = sources_item_data.to_dict()
                sources.append(sources_item)

        created_by: None | str | Unset
        if isinstance(self.created_by, Unset):
            created_by = UNSET
        else:
            created_by = self.created_by

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if sources is not UNSET:
            field_dict["sources"] = sources
        if created_by is not UNSET:
            field_dict["created_by"] = created_by

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.provenance_source import ProvenanceSource  # noqa: PLC0415

        d = dict(src_dict)
        _sources = d.pop("sources", UNSET)
        sources: list[ProvenanceSource] | Unset = UNSET
        if _sources is not UNSET:
            sources = []
            for sources_item_data in _sources:
                sources_item = ProvenanceSource.from_dict(sources_item_data)

                sources.append(sources_item)

        def _parse_created_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        created_by = _parse_created_by(d.pop("created_by", UNSET))

        provenance = cls(
            sources=sources,
            created_by=created_by,
        )

        return provenance

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.embedding_info import EmbeddingInfo
    from ..models.export_filters import ExportFilters


T = TypeVar("T", bound="HeaderLine")


@_attrs_define
class HeaderLine:
    """First line: what the file is and how it was made.

    Attributes:
        exported_at (datetime.datetime):
        kind (Literal['header'] | Unset):  Default: 'header'.
        format_ (Literal['membrane-export'] | Unset):  Default: 'membrane-export'.
        version (int | Unset):  Default: 1.
        schema_revision (None | str | Unset):
        filters (ExportFilters | Unset): Which records an export holds (every field narrows; empty: no limit).
        embeddings (EmbeddingInfo | None | Unset): The source's pinned embedding model, when it has one.
    """

    exported_at: datetime.datetime
    kind: Literal["header"] | Unset = "header"
    format_: Literal["membrane-export"] | Unset = "membrane-export"
    version: int | Unset = 1
    schema_revision: None | str | Unset = UNSET
    filters: ExportFilters | Unset = UNSET
    embeddings: EmbeddingInfo | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.embedding_info import EmbeddingInfo  # noqa: PLC0415
        from ..models.export_filters import ExportFilters  # noqa: PLC0415

        exported_at = self.exported_at.isoformat()

        kind = self.kind

        format_ = self.format_

        version = self.version

        schema_revision: None | str | Unset
        if isinstance(self.schema_revision, Unset):
            schema_revision = UNSET
        else:
            schema_revision = self.schema_revision

        filters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.filters, Unset):
            filters = self.filters.to_dict()

        embeddings: dict[str, Any] | None | Unset
        if isinstance(self.embeddings, Unset):
            embeddings = UNSET
        elif isinstance(self.embeddings, EmbeddingInfo):
            embeddings = self.embeddings.to_dict()
        else:
            embeddings = self.embeddings

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "exported_at": exported_at,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if format_ is not UNSET:
            field_dict["format"] = format_
        if version is not UNSET:
            field_dict["version"] = version
        if schema_revision is not UNSET:
            field_dict["schema_revision"] = schema_revision
        if filters is not UNSET:
            field_dict["filters"] = filters
        if embeddings is not UNSET:
            field_dict["embeddings"] = embeddings

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.embedding_info import EmbeddingInfo  # noqa: PLC0415
        from ..models.export_filters import ExportFilters  # noqa: PLC0415

        d = dict(src_dict)
        exported_at = datetime.datetime.fromisoformat(d.pop("exported_at"))

        kind = cast(Literal["header"] | Unset, d.pop("kind", UNSET))
        if kind != "header" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'header', got '{kind}'")

        format_ = cast(Literal["membrane-export"] | Unset, d.pop("format", UNSET))
        if format_ != "membrane-export" and not isinstance(format_, Unset):
            raise ValueError(f"format must match const 'membrane-export', got '{format_}'")

        version = d.pop("version", UNSET)

        def _parse_schema_revision(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        schema_revision = _parse_schema_revision(d.pop("schema_revision", UNSET))

        _filters = d.pop("filters", UNSET)
        filters: ExportFilters | Unset
        if isinstance(_filters, Unset):
            filters = UNSET
        else:
            filters = ExportFilters.from_dict(_filters)

        def _parse_embeddings(data: object) -> EmbeddingInfo | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                embeddings_type_0 = EmbeddingInfo.from_dict(data)

                return embeddings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EmbeddingInfo | None | Unset, data)

        embeddings = _parse_embeddings(d.pop("embeddings", UNSET))

        header_line = cls(
            exported_at=exported_at,
            kind=kind,
            format_=format_,
            version=version,
            schema_revision=schema_revision,
            filters=filters,
            embeddings=embeddings,
        )

        return header_line

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="EmbeddingLine")


@_attrs_define
class EmbeddingLine:
    """A record's vector and the model that made it.

    Attributes:
        record_id (str): A record id: a lowercase UUID, as the service issues them.
        model (str):
        dimension (int):
        vector (list[float]):
        kind (Literal['embedding'] | Unset):  Default: 'embedding'.
    """

    record_id: str
    model: str
    dimension: int
    vector: list[float]
    kind: Literal["embedding"] | Unset = "embedding"

    def to_dict(self) -> dict[str, Any]:
        record_id = self.record_id

        model = self.model

        dimension = self.dimension

        vector = self.vector

        kind = self.kind

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "record_id": record_id,
                "model": model,
                "dimension": dimension,
                "vector": vector,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        record_id = d.pop("record_id")

        model = d.pop("model")

        dimension = d.pop("dimension")

        vector = cast(list[float], d.pop("vector"))

        kind = cast(Literal["embedding"] | Unset, d.pop("kind", UNSET))
        if kind != "embedding" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'embedding', got '{kind}'")

        embedding_line = cls(
            record_id=record_id,
            model=model,
            dimension=dimension,
            vector=vector,
            kind=kind,
        )

        return embedding_line

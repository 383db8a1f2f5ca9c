from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="EmbeddingInfo")


@_attrs_define
class EmbeddingInfo:
    """
    Attributes:
        model (str):
        dimension (int):
    """

    model: str
    dimension: int

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        dimension = self.dimension

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "model": model,
                "dimension": dimension,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        model = d.pop("model")

        dimension = d.pop("dimension")

        embedding_info = cls(
            model=model,
            dimension=dimension,
        )

        return embedding_info

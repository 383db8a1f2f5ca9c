from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ScoreComponents")


@_attrs_define
class ScoreComponents:
    """
    Attributes:
        lexical (float | None): BM25, scaled so the best match is 1.
        vector (float | None): Cosine similarity, min-max scaled; null if none.
        entity (float): 1 when the query names this entity record; 0.3 when the record mentions an entity the query
            names (its relevance is raised by 30 %).
        context (float): Share received from a neighbouring strong hit and from the best match of the record's sitting.
        relevance (float | None): Fused relevance in [0, 1]; null without query.
        salience (float): Current salience.
    """

    lexical: float | None
    vector: float | None
    entity: float
    context: float
    relevance: float | None
    salience: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        lexical: float | None
        lexical = self.lexical

        vector: float | None
        vector = self.vector

        entity = self.entity

        context = self.context

        relevance: float | None
        relevance = self.relevance

        salience = self.salience

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "lexical": lexical,
                "vector": vector,
                "entity": entity,
                "context": context,
                "relevance": relevance,
                "salience": salience,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_lexical(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        lexical = _parse_lexical(d.pop("lexical"))

        def _parse_vector(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        vector = _parse_vector(d.pop("vector"))

        entity = d.pop("entity")

        context = d.pop("context")

        def _parse_relevance(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        relevance = _parse_relevance(d.pop("relevance"))

        salience = d.pop("salience")

        score_components = cls(
            lexical=lexical,
            vector=vector,
            entity=entity,
            context=context,
            relevance=relevance,
            salience=salience,
        )

        score_components.additional_properties = d
        return score_components

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties

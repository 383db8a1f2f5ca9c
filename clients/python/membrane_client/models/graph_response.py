from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.graph_node import GraphNode
    from ..models.relation_out import RelationOut
    from ..models.retrieved_item import RetrievedItem


T = TypeVar("T", bound="GraphResponse")


@_attrs_define
class GraphResponse:
    """
    Attributes:
        roots (list[RetrievedItem]):
        nodes (list[GraphNode]):
        edges (list[RelationOut]):
        truncated (bool): A node or edge limit cut the neighbourhood short.
        signals (list[str]):
    """

    roots: list[RetrievedItem]
    nodes: list[GraphNode]
    edges: list[RelationOut]
    truncated: bool
    signals: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.graph_node import GraphNode  # noqa: PLC0415
        from ..models.relation_out import RelationOut  # noqa: PLC0415
        from ..models.retrieved_item import RetrievedItem  # noqa: PLC0415

        roots = []
        for roots_item_data in self.roots:
            roots_item = roots_item_data.to_dict()
            roots.append(roots_item)

        nodes = []
        for nodes_item_data in self.nodes:
            nodes_item = nodes_item_data.to_dict()
            nodes.append(nodes_item)

        edges = []
        for edges_item_data in self.edges:
            edges_item = edges_item_data.to_dict()
            edges.append(edges_item)

        truncated = self.truncated

        signals = self.signals

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "roots": roots,
                "nodes": nodes,
                "edges": edges,
                "truncated": truncated,
                "signals": signals,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.graph_node import GraphNode  # noqa: PLC0415
        from ..models.relation_out import RelationOut  # noqa: PLC0415
        from ..models.retrieved_item import RetrievedItem  # noqa: PLC0415

        d = dict(src_dict)
        roots = []
        _roots = d.pop("roots")
        for roots_item_data in _roots:
            roots_item = RetrievedItem.from_dict(roots_item_data)

            roots.append(roots_item)

        nodes = []
        _nodes = d.pop("nodes")
        for nodes_item_data in _nodes:
            nodes_item = GraphNode.from_dict(nodes_item_data)

            nodes.append(nodes_item)

        edges = []
        _edges = d.pop("edges")
        for edges_item_data in _edges:
            edges_item = RelationOut.from_dict(edges_item_data)

            edges.append(edges_item)

        truncated = d.pop("truncated")

        signals = cast(list[str], d.pop("signals"))

        graph_response = cls(
            roots=roots,
            nodes=nodes,
            edges=edges,
            truncated=truncated,
            signals=signals,
        )

        graph_response.additional_properties = d
        return graph_response

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

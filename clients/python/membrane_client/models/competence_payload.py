from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.performance import Performance
    from ..models.recipe_step import RecipeStep
    from ..models.trigger import Trigger


T = TypeVar("T", bound="CompetencePayload")


@_attrs_define
class CompetencePayload:
    """
    Attributes:
        kind (Literal['competence']):
        skill_name (str):
        triggers (list[Trigger] | Unset):
        recipe (list[RecipeStep] | Unset):
        required_tools (list[str] | Unset):
        failure_modes (list[str] | Unset):
        fallbacks (list[str] | Unset):
        performance (Performance | Unset):
        version (int | None | str | Unset):
    """

    kind: Literal["competence"]
    skill_name: str
    triggers: list[Trigger] | Unset = UNSET
    recipe: list[RecipeStep] | Unset = UNSET
    required_tools: list[str] | Unset = UNSET
    failure_modes: list[str] | Unset = UNSET
    fallbacks: list[str] | Unset = UNSET
    performance: Performance | Unset = UNSET
    version: int | None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.performance import Performance  # noqa: PLC0415
        from ..models.recipe_step import RecipeStep  # noqa: PLC0415
        from ..models.trigger import Trigger  # noqa: PLC0415

        kind = self.kind

        skill_name = self.skill_name

        triggers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.triggers, Unset):
            triggers = []
            for triggers_item_data in self.triggers:
                triggers_item = triggers_item_data.to_dict()
                triggers.append(triggers_item)

        recipe: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.recipe, Unset):
            recipe = []
            for recipe_item_data in self.recipe:
                recipe_item = recipe_item_data.to_dict()
                recipe.append(recipe_item)

        required_tools: list[str] | Unset = UNSET
        if not isinstance(self.required_tools, Unset):
            required_tools = self.required_tools

        failure_modes: list[str] | Unset = UNSET
        if not isinstance(self.failure_modes, Unset):
            failure_modes = self.failure_modes

        fallbacks: list[str] | Unset = UNSET
        if not isinstance(self.fallbacks, Unset):
            fallbacks = self.fallbacks

        performance: dict[str, Any] | Unset = UNSET
        if not isinstance(self.performance, Unset):
            performance = self.performance.to_dict()

        version: int | None | str | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "skill_name": skill_name,
            }
        )
        if triggers is not UNSET:
            field_dict["triggers"] = triggers
        if recipe is not UNSET:
            field_dict["recipe"] = recipe
        if required_tools is not UNSET:
            field_dict["required_tools"] = required_tools
        if failure_modes is not UNSET:
            field_dict["failure_modes"] = failure_modes
        if fallbacks is not UNSET:
            field_dict["fallbacks"] = fallbacks
        if performance is not UNSET:
            field_dict["performance"] = performance
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.performance import Performance  # noqa: PLC0415
        from ..models.recipe_step import RecipeStep  # noqa: PLC0415
        from ..models.trigger import Trigger  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["competence"], d.pop("kind"))
        if kind != "competence":
            raise ValueError(f"kind must match const 'competence', got '{kind}'")

        skill_name = d.pop("skill_name")

        _triggers = d.pop("triggers", UNSET)
        triggers: list[Trigger] | Unset = UNSET
        if _triggers is not UNSET:
            triggers = []
            for triggers_item_data in _triggers:
                triggers_item = Trigger.from_dict(triggers_item_data)

                triggers.append(triggers_item)

        _recipe = d.pop("recipe", UNSET)
        recipe: list[RecipeStep] | Unset = UNSET
        if _recipe is not UNSET:
            recipe = []
            for recipe_item_data in _recipe:
                recipe_item = RecipeStep.from_dict(recipe_item_data)

                recipe.append(recipe_item)

        required_tools = cast(list[str], d.pop("required_tools", UNSET))

        failure_modes = cast(list[str], d.pop("failure_modes", UNSET))

        fallbacks = cast(list[str], d.pop("fallbacks", UNSET))

        _performance = d.pop("performance", UNSET)
        performance: Performance | Unset
        if isinstance(_performance, Unset):
            performance = UNSET
        else:
            performance = Performance.from_dict(_performance)

        def _parse_version(data: object) -> int | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | str | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        competence_payload = cls(
            kind=kind,
            skill_name=skill_name,
            triggers=triggers,
            recipe=recipe,
            required_tools=required_tools,
            failure_modes=failure_modes,
            fallbacks=fallbacks,
            performance=performance,
            version=version,
        )

        return competence_payload

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.recipe_step_args import RecipeStepArgs
    from ..models.recipe_step_args_schema_type_0 import RecipeStepArgsSchemaType0


T = TypeVar("T", bound="RecipeStep")


@_attrs_define
class RecipeStep:
    """The original's step is the step's text (`step: "run tests"`); today's is its
    ordinal with the text in `action`. Both are accepted; a text step fills `action`.

        Attributes:
            step (int | str):
            action (str | Unset):  Default: ''.
            tool (None | str | Unset):
            args (RecipeStepArgs | Unset):
            args_schema (None | RecipeStepArgsSchemaType0 | Unset):
            validation (None | str | Unset):
    """

    step: int | str
    action: str | Unset = ""
    tool: None | str | Unset = UNSET
    args: RecipeStepArgs | Unset = UNSET
    args_schema: None | RecipeStepArgsSchemaType0 | Unset = UNSET
    validation: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.recipe_step_args import RecipeStepArgs  # noqa: PLC0415
        from ..models.recipe_step_args_schema_type_0 import RecipeStepArgsSchemaType0  # noqa: PLC0415

        step: int | str
        step = self.step

        action = self.action

        tool: None | str | Unset
        if isinstance(self.tool, Unset):
            tool = UNSET
        else:
            tool = self.tool

        args: dict[str, Any] | Unset = UNSET
        if not isinstance(self.args, Unset):
            args = self.args.to_dict()

        args_schema: dict[str, Any] | None | Unset
        if isinstance(self.args_schema, Unset):
            args_schema = UNSET
        elif isinstance(self.args_schema, RecipeStepArgsSchemaType0):
            args_schema = self.args_schema.to_dict()
        else:
            args_schema = self.args_schema

        validation: None | str | Unset
        if isinstance(self.validation, Unset):
            validation = UNSET
        else:
            validation = self.validation

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "step": step,
            }
        )
        if action is not UNSET:
            field_dict["action"] = action
        if tool is not UNSET:
            field_dict["tool"] = tool
        if args is not UNSET:
            field_dict["args"] = args
        if args_schema is not UNSET:
            field_dict["args_schema"] = args_schema
        if validation is not UNSET:
            field_dict["validation"] = validation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.recipe_step_args import RecipeStepArgs  # noqa: PLC0415
        from ..models.recipe_step_args_schema_type_0 import RecipeStepArgsSchemaType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_step(data: object) -> int | str:
            return cast(int | str, data)

        step = _parse_step(d.pop("step"))

        action = d.pop("action", UNSET)

        def _parse_tool(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool = _parse_tool(d.pop("tool", UNSET))

        _args = d.pop("args", UNSET)
        args: RecipeStepArgs | Unset
        if isinstance(_args, Unset):
            args = UNSET
        else:
            args = RecipeStepArgs.from_dict(_args)

        def _parse_args_schema(data: object) -> None | RecipeStepArgsSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                args_schema_type_0 = RecipeStepArgsSchemaType0.from_dict(data)

                return args_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecipeStepArgsSchemaType0 | Unset, data)

        args_schema = _parse_args_schema(d.pop("args_schema", UNSET))

        def _parse_validation(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        validation = _parse_validation(d.pop("validation", UNSET))

        recipe_step = cls(
            step=step,
            action=action,
            tool=tool,
            args=args,
            args_schema=args_schema,
            validation=validation,
        )

        return recipe_step

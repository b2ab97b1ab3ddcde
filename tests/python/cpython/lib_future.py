from __future__ import annotations
import __future__


def scale(x: float, factor: Tensor = None) -> Tensor:
    return x * 2


print(scale(3), __future__.annotations.getOptionalRelease(), "annotations" in __future__.all_feature_names)
print(__future__.division.getMandatoryRelease(), __future__.division.compiler_flag == __future__.CO_FUTURE_DIVISION)

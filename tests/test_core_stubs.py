"""python/sdmac/_core.pyi against the built ``sdmac._core``: every public name of the
module and every public attribute of its classes is typed, and the stub names
nothing the module lacks. Functions and methods have the same parameters (names,
kinds, which have defaults), properties are properties, static methods static, and
the exceptions derive from the same bases. The stub is read with ``ast``.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any, Dict, List, Optional, Tuple

import pytest

import sdmac._core as core
from helpers import ROOT

STUB = ROOT / "python" / "sdmac" / "_core.pyi"
#: Module dunders the stub must carry too (all other names starting with "_" are private).
PUBLIC_DUNDERS = {"__version__"}

Def = ast.FunctionDef


def _public(name: str) -> bool:
    return not name.startswith("_") or name in PUBLIC_DUNDERS


def _stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"), filename=str(STUB))


def _names_of(body: List[ast.stmt]) -> Dict[str, ast.stmt]:
    """The names a module or class body binds: defs, classes, annotated or plain assignments."""
    out: Dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node
    return out


def _decorators(node: ast.stmt) -> List[str]:
    if not isinstance(node, ast.FunctionDef):
        return []
    return [d.id for d in node.decorator_list if isinstance(d, ast.Name)]


#: A parameter: (name, kind as in inspect.Parameter, has a default).
Param = Tuple[str, str, bool]


def _stub_params(node: Def, method: bool) -> Tuple[List[Param], Dict[str, Any]]:
    """The parameters of a stub def (`self` dropped) and the values of its defaults
    (those written as literals; a tuple stands for the list pyo3 would build)."""
    a = node.args
    positional = [(p, "POSITIONAL_ONLY") for p in a.posonlyargs] + [(p, "POSITIONAL_OR_KEYWORD") for p in a.args]
    pos_defaults: List[Optional[ast.expr]] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    pairs = [(p.arg, kind, d) for (p, kind), d in zip(positional, pos_defaults)]
    if method and "staticmethod" not in _decorators(node):
        pairs = pairs[1:]
    if a.vararg:
        pairs.append((a.vararg.arg, "VAR_POSITIONAL", None))
    pairs += [(p.arg, "KEYWORD_ONLY", d) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        pairs.append((a.kwarg.arg, "VAR_KEYWORD", None))
    values: Dict[str, Any] = {}
    for name, _, d in pairs:
        if d is not None:
            try:
                values[name] = ast.literal_eval(d)
            except ValueError:
                pass
    return [(name, kind, d is not None) for name, kind, d in pairs], values


def _runtime_params(obj: Any) -> Optional[Tuple[List[Param], Dict[str, Any]]]:
    """The parameters from the signature pyo3 records and the defaults it shows (it
    shows ``...`` for those it cannot write); None when it records none."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = [p for p in sig.parameters.values() if p.name not in ("self", "cls", "$self", "$cls")]
    values = {p.name: p.default for p in params if p.default not in (inspect.Parameter.empty, ...)}
    return [(p.name, p.kind.name, p.default is not inspect.Parameter.empty) for p in params], values


def _runtime_public_names() -> set:
    return {n for n in dir(core) if _public(n)}


def _runtime_classes() -> Dict[str, type]:
    return {n: getattr(core, n) for n in _runtime_public_names() if isinstance(getattr(core, n), type)}


def test_the_stub_types_every_public_name_and_no_other():
    stub = {n for n in _names_of(_stub_tree().body) if _public(n)}
    runtime = _runtime_public_names()
    assert not runtime - stub, f"sdmac._core names missing from {STUB.name}: {sorted(runtime - stub)}"
    assert not stub - runtime, f"{STUB.name} names what sdmac._core lacks: {sorted(stub - runtime)}"


def _class_pairs() -> List[Tuple[str, type, ast.ClassDef]]:
    stub = _names_of(_stub_tree().body)
    pairs = []
    for name, cls in sorted(_runtime_classes().items()):
        node = stub.get(name)
        assert isinstance(node, ast.ClassDef), f"{name} is a class in sdmac._core, not in {STUB.name}"
        pairs.append((name, cls, node))
    return pairs


def test_classes_have_every_public_attribute_and_no_other():
    problems = []
    for name, cls, node in _class_pairs():
        runtime = {n for n in vars(cls) if not n.startswith("_")}
        stub = {n for n in _names_of(node.body) if not n.startswith("_")}
        if runtime - stub:
            problems.append(f"{name}: missing from the stub: {sorted(runtime - stub)}")
        if stub - runtime:
            problems.append(f"{name}: in the stub only: {sorted(stub - runtime)}")
    assert not problems, "\n".join(problems)


def test_class_bases_match():
    for name, cls, node in _class_pairs():
        stub_bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
        runtime_bases = [b.__name__ for b in cls.__bases__ if b is not object]
        assert stub_bases == runtime_bases, f"{name}: bases {stub_bases} in the stub, {runtime_bases} at runtime"


def test_properties_and_static_methods_match():
    problems = []
    for name, cls, node in _class_pairs():
        stub = _names_of(node.body)
        for attr, raw in vars(cls).items():
            if attr.startswith("_") or attr not in stub:
                continue
            decorators = _decorators(stub[attr])
            is_property = inspect.isdatadescriptor(raw)
            if is_property != ("property" in decorators):
                problems.append(f"{name}.{attr}: property at runtime {is_property}, in the stub {not is_property}")
            is_static = isinstance(raw, staticmethod)
            if is_static != ("staticmethod" in decorators):
                problems.append(f"{name}.{attr}: staticmethod at runtime {is_static}, in the stub {not is_static}")
    assert not problems, "\n".join(problems)


def _callables() -> List[Tuple[str, Any, Def, bool]]:
    """(qualified name, runtime object, stub def, is a method) of every public callable
    that is not a class."""
    stub = _names_of(_stub_tree().body)
    out: List[Tuple[str, Any, Def, bool]] = []
    for name in sorted(_runtime_public_names()):
        obj, node = getattr(core, name), stub.get(name)
        if callable(obj) and not isinstance(obj, type) and isinstance(node, ast.FunctionDef):
            out.append((name, obj, node, False))
    for name, cls, cnode in _class_pairs():
        members = _names_of(cnode.body)
        for attr, raw in vars(cls).items():
            m = members.get(attr)
            if attr.startswith("_") or inspect.isdatadescriptor(raw) or not isinstance(m, ast.FunctionDef):
                continue
            out.append((f"{name}.{attr}", getattr(cls, attr), m, True))
    return out


CALLABLES = _callables()


@pytest.mark.parametrize("qualname, obj, node, method", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_parameters_match(qualname, obj, node, method):
    runtime = _runtime_params(obj)
    if runtime is None:
        pytest.skip(f"{qualname} has no signature at runtime")
    (params, defaults), (stub_params, stub_defaults) = runtime, _stub_params(node, method)
    assert stub_params == params, f"{qualname}: the stub has {stub_params}, sdmac._core {params}"
    for name, value in defaults.items():
        assert name in stub_defaults, f"{qualname}: the stub's default of {name} is not a literal"
        assert stub_defaults[name] == value, f"{qualname}: {name} defaults to {value!r}, the stub says {stub_defaults[name]!r}"


def test_the_stub_catches_a_missing_name(tmp_path, monkeypatch):
    """The checks above see a stub that lost a name (here Session.close)."""
    text = STUB.read_text(encoding="utf-8")
    broken = text.replace("    def close(self) -> None:", "    def _gone(self) -> None:")
    assert broken != text
    copy = tmp_path / "_core.pyi"
    copy.write_text(broken, encoding="utf-8")
    monkeypatch.setitem(globals(), "STUB", copy)
    with pytest.raises(AssertionError, match=r"Session: missing from the stub: \['close'\]"):
        test_classes_have_every_public_attribute_and_no_other()

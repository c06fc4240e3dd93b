"""python/nft.pyi describes the module as built: the same public classes, functions, methods and
properties (a name added to the bindings without a stub, or a stub left behind, fails here)."""

import ast
import inspect

import nft
from conftest import SOURCE_DIR

STUB = SOURCE_DIR / "python" / "nft.pyi"


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top.add(node.name)
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            members[node.name] |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
    return top, members


def public(names):
    return {n for n in names if not n.startswith("__")}


def test_stubs_match_the_module():
    top, members = stub_names()
    module_names = {n for n in dir(nft) if not n.startswith("_")}
    assert module_names == top, (module_names - top, top - module_names)
    for name in top:
        obj = getattr(nft, name)
        if not inspect.isclass(obj) or issubclass(obj, Exception):
            continue
        built = {n for n in vars(obj) if not n.startswith("__")}
        stubbed = public(members[name]) - {"__init__"}
        assert built == stubbed, (name, built - stubbed, stubbed - built)


def test_every_public_name_has_a_docstring():
    for name in dir(nft):
        if name.startswith("_"):
            continue
        obj = getattr(nft, name)
        assert obj.__doc__ and len(obj.__doc__) > 20, name
        if inspect.isclass(obj) and not issubclass(obj, Exception):
            for member, value in vars(obj).items():
                if not member.startswith("_"):
                    assert value.__doc__, f"{name}.{member} has no docstring"

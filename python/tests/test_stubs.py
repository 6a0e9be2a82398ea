"""The type stubs (appell/_appell.pyi) name exactly what the compiled module exports, class
by class; every public function and class has a docstring whose help() shows signatures in
words (no pybind11 "arg0" or numpy.ndarray[...] types); python/src uses only the public
C++ headers."""

import ast
import inspect
import pathlib
import re

import appell
from appell import _appell
from conftest import SOURCE

STUB = pathlib.Path(appell.__file__).with_name("_appell.pyi")


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top.add(node.name)
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign):
                    members.add(item.target.id)
            classes[node.name] = members
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            top.add(node.name)
    return top, classes


def exported(obj):
    return {n for n in vars(obj) if not n.startswith("__")}


def test_the_package_ships_its_stubs_and_the_py_typed_marker():
    assert STUB.is_file()
    assert STUB.with_name("py.typed").is_file()


def test_the_stubs_name_what_the_module_exports():
    top, classes = stub_names()
    assert top == exported(_appell)
    for name, members in classes.items():
        cls = getattr(_appell, name)
        if issubclass(cls, Exception):
            continue  # SceneError's attributes are set per instance
        public = {n for n in dir(cls) if not n.startswith("_")}
        assert members - {"__init__"} == public, name


def test_every_public_callable_has_a_docstring_with_a_signature_in_words():
    for name in appell.__all__:
        obj = getattr(appell, name)
        assert obj.__doc__ and obj.__doc__.strip(), name
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if member.startswith("_") and member != "__init__":
                    continue
                if callable(value) or isinstance(value, property):
                    assert value.__doc__ and value.__doc__.strip(), f"{name}.{member}"
    for name in dir(_appell):
        obj = getattr(_appell, name)
        if callable(obj) and not inspect.isclass(obj):
            doc = obj.__doc__ or ""
            assert doc.startswith(name + "("), name  # the signature the docstring writes
            assert "arg0" not in doc and "numpy.float64[" not in doc, name
    text = "\n".join(inspect.getdoc(getattr(appell, n)) or "" for n in appell.__all__)
    assert "arg0" not in text


def test_the_bindings_include_only_public_headers():
    for path in sorted((SOURCE / "python" / "src").glob("*.*pp")):
        for inc in re.findall(r'#include\s+"([^"]+)"', path.read_text()):
            assert inc.startswith(("appell/", "python/src/")), f"{path.name}: {inc}"

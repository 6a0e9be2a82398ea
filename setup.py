"""`pip install .`: the package python/appell/ and its C++ module appell._appell, built by
this project's CMake (only the module's target, appell_python).

The CMake build tree is build/pip (kept: a second install recompiles only what changed);
APPELL_CMAKE_BUILD_DIR names another, e.g. an existing `build` (then it is built as it is
configured, not configured again).  CMAKE_ARGS adds arguments to a new configuration."""

import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.abspath(os.environ.get("APPELL_CMAKE_BUILD_DIR")
                                or os.path.join(HERE, "build", "pip"))
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            subprocess.check_call(
                ["cmake", "-S", HERE, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                 "-DAPPELL_BUILD_TESTS=OFF", "-DAPPELL_BUILD_BENCH=OFF", "-DAPPELL_REPORT=OFF",
                 f"-DPython3_EXECUTABLE={sys.executable}"]
                + shlex.split(os.environ.get("CMAKE_ARGS", "")))
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", build, "-j", jobs, "--target", "appell_python"])
        built = glob.glob(os.path.join(build, "python", "appell", "_appell*.so"))
        if len(built) != 1:
            raise RuntimeError(f"appell: expected one _appell module in {build}/python/appell, "
                               f"found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    packages=["appell"],
    package_dir={"appell": "python/appell"},
    package_data={"appell": ["*.pyi", "py.typed"]},  # the type stubs
    ext_modules=[Extension("appell._appell", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)

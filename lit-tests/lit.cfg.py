# lit configuration of the wsn-trace suite. One behaviour per test file.
import os
import lit.formats
from lit.llvm import llvm_config

config.name = "wsn-trace"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".ll", ".c", ".test", ".sg"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.wsn_obj_root, "lit-tests")

# Our tools first, then LLVM 19's (so `opt`, `not`, `FileCheck` are the 19 ones, never
# /usr/bin/opt which is LLVM 14).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.wsn_tools_dir, append_path=True)

config.substitutions.append(("%wsn_plugin", config.wsn_plugin))
config.substitutions.append(("%opt", os.path.join(config.llvm_tools_dir, "opt")))
config.substitutions.append(("%clang", os.path.join(config.llvm_tools_dir, "clang")))
config.substitutions.append(("%wsn_src", config.wsn_src_root))
config.substitutions.append(("%wsn_include",
                             os.path.join(config.wsn_src_root, "trace-runtime", "include")))
config.substitutions.append(("%python", config.python_executable))

for tool in ["mspdebug", "simavr", "avr-gcc", "gdb", "dot"]:
    if any(os.path.exists(os.path.join(p, tool)) for p in os.environ.get("PATH", "").split(os.pathsep)):
        config.available_features.add(tool)

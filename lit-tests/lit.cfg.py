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

# Sanitizer builds (-DWSN_SANITIZE, bench/sanitize.sh): two limits of LeakSanitizer, each lifted
# for the RUN lines that meet it and nowhere else. Both substitutions are empty in other builds.
# (LLVM 19's lit does not pass ASAN_OPTIONS or LSAN_OPTIONS through to tests, so these set them.)
# %no_lsan_under_ptrace: LeakSanitizer's leak check stops the process's threads with ptrace,
#   which fails in a process a debugger already traces ("LeakSanitizer has encountered a fatal
#   error"): for a tool run under gdb, leak detection is off (AddressSanitizer's other checks
#   and UBSan stay on).
# %lsan_reader_crash: wsn-replay reading an IR file on which LLVM's reader crashes abandons what
#   the reader built (replay-jit/engine/ReplayEngine.h, parseProgramIR); lsan-reader-crash.supp suppresses exactly those
#   objects by the reader's frames. Debian's LLVM libraries have no frame pointers, so the
#   allocation stacks are unwound the slow way (fast_unwind_on_malloc=0) for those RUN lines
#   only, deep enough (malloc_context_size=64) to reach the reader's entry points.
if getattr(config, "wsn_sanitize", ""):
    config.substitutions.append(("%no_lsan_under_ptrace", "env ASAN_OPTIONS=detect_leaks=0"))
    config.substitutions.append((
        "%lsan_reader_crash",
        "env ASAN_OPTIONS=fast_unwind_on_malloc=0:malloc_context_size=64 LSAN_OPTIONS=suppressions="
        + os.path.join(config.wsn_src_root, "lit-tests", "lsan-reader-crash.supp")))
else:
    config.substitutions.append(("%no_lsan_under_ptrace", ""))
    config.substitutions.append(("%lsan_reader_crash", ""))

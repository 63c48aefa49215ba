/* wsn/invariant.h - stating correctness for wsn-trace.
 *
 *   WSN_INVARIANT(period_ok) { return sample_period >= 90 && sample_period <= 110; }
 *   ...
 *   WSN_CHECK(period_ok);      // check here
 *
 * WSN_INVARIANT defines an invariant-checking function (thesis 4.4.1 wraps every invariant in
 * such a function). It is marked with clang's annotate attribute "wsn.invariant", which the
 * analyses find in @llvm.global.annotations, and kept out of line so that the check site stays
 * a call. Invariants may live in their own C file merged with llvm-link; WSN_DECLARE_INVARIANT
 * declares one defined elsewhere.
 */
#ifndef WSN_INVARIANT_H
#define WSN_INVARIANT_H

#ifdef __cplusplus
#define WSN_EXTERN_C extern "C"
#else
#define WSN_EXTERN_C
#endif

#define WSN_INVARIANT_FN(name) wsn_invariant_##name

#define WSN_DECLARE_INVARIANT(name) WSN_EXTERN_C _Bool WSN_INVARIANT_FN(name)(void)

#define WSN_INVARIANT(name)                                                              \
  WSN_DECLARE_INVARIANT(name);                                                           \
  WSN_EXTERN_C __attribute__((annotate("wsn.invariant"), noinline, used)) _Bool         \
  WSN_INVARIANT_FN(name)(void)

/* The check: a call whose result goes to a volatile slot, so that the optimizer cannot drop a
 * call to a pure invariant function; the instrumentation follows the call with a wsn.check
 * trace op. */
#define WSN_CHECK(name)                                                                  \
  do {                                                                                   \
    volatile _Bool wsn_check_result_ = WSN_INVARIANT_FN(name)();                         \
    (void)wsn_check_result_;                                                             \
  } while (0)

#endif

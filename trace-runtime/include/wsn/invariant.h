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
/* Annotation fallback for code whose handlers and tasks the analyses cannot recognize by
 * calling convention or name (spec/analysis.md, section 1):
 *   WSN_INTERRUPT(7) void radio_isr(void) { ... }      // an interrupt handler, vector 7
 *   WSN_INPUT_HANDLER void adc_ready(void) { ... }     // a handler taking external input (LOG 5)
 *   WSN_TASK void blink_task(void) { ... }             // a task run by the scheduler
 */
#define WSN_INTERRUPT(vec) __attribute__((annotate("wsn.interrupt:" #vec), noinline, used))
#define WSN_INPUT_HANDLER __attribute__((annotate("wsn.input"), noinline, used))
#define WSN_TASK __attribute__((annotate("wsn.task"), noinline))

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

/* Annotation fallback for code whose handlers and tasks the analyses cannot recognize by
 * calling convention or name (spec/analysis.md, section 1):
 *   WSN_INTERRUPT(7) void radio_isr(void) { ... }      // an interrupt handler, vector 7
 *   WSN_INPUT_HANDLER void adc_ready(void) { ... }     // a handler taking external input (LOG 5)
 *   WSN_TASK void blink_task(void) { ... }             // a task run by the scheduler
 */
#define WSN_INTERRUPT(vec) __attribute__((annotate("wsn.interrupt:" #vec), noinline, used))
#define WSN_INPUT_HANDLER __attribute__((annotate("wsn.input"), noinline, used))
#define WSN_TASK __attribute__((annotate("wsn.task"), noinline))

#endif

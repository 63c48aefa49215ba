/* scheduler.h - TinyOS 2's basic FIFO task scheduler (SchedulerBasicP), as nesC emits it.
 * Tasks are small integer ids; a task can be queued at most once. */
#ifndef WSN_EXAMPLES_SCHEDULER_H
#define WSN_EXAMPLES_SCHEDULER_H

#include "hal.h"

#define SCHEDULER_NUM_TASKS 8
#define SCHEDULER_NO_TASK 255

void SchedulerBasicP$Scheduler$init(void);
bool_t SchedulerBasicP$Scheduler$runNextTask(void);
void SchedulerBasicP$Scheduler$taskLoop(void) __attribute__((noreturn));
error_t SchedulerBasicP$TaskBasic$postTask(uint8_t id);

/* Provided by the program (nesC generates this switch over the task ids). */
void SchedulerBasicP$TaskBasic$runTask(uint8_t id);

/* Provided by the program: RealMainP's wiring to the application. */
void RealMainP$SoftwareInit$init(void);
void RealMainP$Boot$booted(void);

#endif

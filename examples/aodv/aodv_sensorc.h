/* aodv_sensorc.h - aodv.c built with -DAODV_SENSORC: the glue to sensorc's generated checks
 * (node_<id>.c of a Figure 3.5 spec over aodv.c, e.g. examples/sensorc/radio/fig3_5_aodv.sg;
 * spec/sensorc.md sections 7 and 7.1). Included by aodv.c after its globals. */
#ifndef AODV_SENSORC_H
#define AODV_SENSORC_H
/* ---- sensorc's generated checks (node_<id>.c; spec/sensorc.md sections 7 and 7.1) ---- */
#define AM_SENSORC 0x31
typedef struct sensorc_msg {
  uint16_t origin, target;
  uint8_t kind;
  uint8_t item_hi, item_lo;
  uint8_t value[4];
} sensorc_msg_t;
void sensorc_check_all(void);
void sensorc_poll(void);
void sensorc_on_reply(const sensorc_msg_t *msg);
uint8_t sensorc_serve(const sensorc_msg_t *req, sensorc_msg_t *reply);
void sensorc_note_send(uint16_t dest, uint8_t type);
void sensorc_note_receive(uint16_t src, uint8_t type);
void sensorc_note_relay_in(uint16_t origin, uint16_t dest);
void sensorc_note_relay_out(uint16_t origin, uint16_t dest);
/* The spec's message aliases: their .type is the AODV frame type the rules match. */
aodv_hdr_t AodvC$rreqKind = {AODV_RREQ, 0, 0, 0, 0};
aodv_hdr_t AodvC$rrepKind = {AODV_RREP, 0, 0, 0, 0};
uint32_t sensorc_now_ms(void) {
  __nesc_atomic_t s = __nesc_atomic_start();
  uint32_t t = (uint32_t)AppC$clock * TICK_MS;
  __nesc_atomic_end(s);
  return t;
}
/* A request for a remote value: sent from the check task (RadioC$send blocks). */
void sensorc_send(const sensorc_msg_t *msg) { (void)RadioC$send(msg->target, AM_SENSORC, msg, sizeof *msg); }
/* A received request waits here for TASK_CHECK, which answers it. */
static sensorc_msg_t SensorcC$request;
static uint8_t SensorcC$requestPending;
#endif

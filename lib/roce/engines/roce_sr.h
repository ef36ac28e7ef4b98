/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_SR_H
#define ROCE_SR_H

/**
 * @file
 * Selective repeat for RC (internal; IRN-style, Mittal et al., SIGCOMM
 * 2018), a softernic extension used only between two softernic ends that
 * negotiated it (roce_qp_attr::selective_repeat, doc/guides/
 * selective-repeat.rst):
 *
 * - every RC WRITE packet carries an SR extension (ROCE_SRX_REQ_LEN
 *   bytes: the target address of its own payload and the R_Key), so the
 *   responder can place a WRITE packet that arrives ahead of the expected
 *   PSN, within ROCE_SR_WINDOW PSNs; it then NAKs the gap (PSN sequence
 *   error at the expected PSN) with a SACK extension (ROCE_SRX_SACK_LEN
 *   bytes: a base PSN and a 256-bit bitmap of the PSNs it holds). SEND,
 *   WRITE with immediate, READ and atomic requests stay in order: ahead
 *   of the expected PSN they are dropped (and not SACKed);
 * - the requester keeps the SACKed PSNs and, in a retransmission round,
 *   resends only the PSNs that are not SACKed; after a NAK it resends only
 *   up to the highest SACKed PSN (the rest is still in flight), after a
 *   timeout everything not SACKed;
 * - the completer places READ response packets that arrive ahead of
 *   comp.psn at their offset and asks again only for the gap;
 * - tail loss (IRN's RTO_low): while at most ROCE_SR_TLP_PKTS PSNs are
 *   unacknowledged and not SACKed, the one retransmission timer of the QP
 *   runs at RTO_low (a fraction of the local ACK timeout); when it expires
 *   those PSNs are resent once (a tail-loss probe: no retry is consumed,
 *   the loss window is kept) and the full timeout stays due as before;
 * - early rounds: once a round trip has been measured (one PSN sent once
 *   timed at a time, smoothed as RFC 6298 does), the timer runs at the
 *   measured RTO (srtt + 4 rttvar, at least ROCE_SR_RTO_MIN_US; the
 *   local ACK timeout when that is shorter; none at a READ); when it
 *   expires without progress away from the tail, the oldest PSN and the
 *   holes up to the highest SACKed PSN
 *   are resent (a lost resend of a hole, a lost NAK), again after 2, 4...
 *   RTOs at the same comp.psn, at most ROCE_SR_EARLY_MAX times; no retry
 *   is consumed, and the local ACK timeout and its retry count stay as the
 *   IBTA has them.
 * Acknowledgements, MSNs and completions stay cumulative and in order.
 *
 * The extension is flagged by ROCE_BTH_APSN_SRX in the BTH and described
 * by roce_opcode_srx_table (roce_opcode.h); a QP without selective repeat
 * drops such packets.
 *
 * PSN maps are rings of ROCE_SR_WINDOW bits indexed by PSN modulo the
 * window (2^24 is a multiple of it, so the index survives the PSN wrap)
 * covering [base, base + ROCE_SR_WINDOW).
 */

#include <stdbool.h>
#include <stdint.h>

#include "roce_opcode.h"
#include "roce_parse.h"

struct roce_qp;
struct rte_mbuf;

enum {
	/** PSNs a map covers: the reorder window of both ends. */
	ROCE_SR_WINDOW = 256,
	ROCE_SR_WORDS = ROCE_SR_WINDOW / 64,
	/** Tail: at most this many PSNs unacknowledged and unSACKed (IRN N) */
	ROCE_SR_TLP_PKTS = 3,
	/** RTO_low: the local ACK timeout divided by 2^this... */
	ROCE_SR_RTO_LOW_SHIFT = 4,
	/** ...but at least this (or the timeout when shorter)... */
	ROCE_SR_RTO_LOW_MIN_US = 100,
	/** ...and at most this */
	ROCE_SR_RTO_LOW_MAX_US = 10000,
	/** The measured RTO's floor (or the timeout when shorter) */
	ROCE_SR_RTO_MIN_US = 100,
	/** Early rounds at one comp.psn before only the timeout is left */
	ROCE_SR_EARLY_MAX = 6,
};

/** A window of PSNs, one bit each. */
struct roce_sr_map {
	uint32_t base;			/**< first PSN of the window */
	uint32_t count;			/**< bits set (first: asked per packet) */
	uint64_t bits[ROCE_SR_WORDS];	/**< bit psn % ROCE_SR_WINDOW */
};

/** Empty map whose window starts at @p base. */
void roce_sr_map_reset(struct roce_sr_map *m, uint32_t base);

/** True when @p psn lies in the window and its bit is set. */
bool roce_sr_map_test(const struct roce_sr_map *m, uint32_t psn);

/**
 * Set the bit of @p psn.
 * @return 1 newly set, 0 already set, -ERANGE outside the window
 */
int roce_sr_map_set(struct roce_sr_map *m, uint32_t psn);

/**
 * Move the window start forward to @p base, clearing the bits of the PSNs
 * left behind (a @p base behind the current one is ignored).
 */
void roce_sr_map_advance(struct roce_sr_map *m, uint32_t base);

/** Highest PSN set; false when the map is empty. */
bool roce_sr_map_highest(const struct roce_sr_map *m, uint32_t *psn);

/** PSNs from @p psn on (within the window) whose bit is clear, in a row. */
uint32_t roce_sr_map_gap(const struct roce_sr_map *m, uint32_t psn);

/** Write the SACK extension of @p m (its base and the whole window). */
void roce_sr_sack_encode(const struct roce_sr_map *m,
			 uint8_t out[ROCE_SRX_SACK_LEN]);

/**
 * OR a received SACK extension into @p m (bits outside the window of
 * @p m are ignored).
 * @return the bits newly set
 */
uint32_t roce_sr_sack_merge(struct roce_sr_map *m,
			    const uint8_t in[ROCE_SRX_SACK_LEN]);

/** Write the request extension: @p va of this packet's payload, @p rkey. */
void roce_sr_req_encode(uint8_t out[ROCE_SRX_REQ_LEN], uint64_t va,
			uint32_t rkey);

/** Read a request extension. */
void roce_sr_req_decode(const uint8_t *in, uint64_t *va, uint32_t *rkey);

/** The SR extension of a parsed packet, NULL when it has none. */
static inline const uint8_t *
roce_sr_pkt_srx(const struct roce_pkt *pkt)
{
	uint8_t xlen;

	if (!(pkt->op->flags & ROCE_OPF_SRX))
		return NULL;
	xlen = pkt->op->hdr_len - roce_opcode_info(pkt->opcode)->hdr_len;
	return roce_pkt_hdr(pkt) + pkt->bth_off + pkt->op->hdr_len - xlen;
}

/* roce_sr_on(qp): inline in roce_qp.h, beside struct roce_qp */

/* ---- responder (roce_resp.c) ---- */

/** What the responder did with a packet ahead of the expected PSN. */
enum roce_sr_ooo {
	ROCE_SR_OOO_ACCEPTED,	/**< placed, its PSN is SACKed */
	ROCE_SR_OOO_DUP,	/**< its PSN was already held */
	ROCE_SR_OOO_DROP,	/**< not placeable out of order (or beyond the window) */
};

/**
 * A request whose PSN is ahead of resp.epsn on an SR QP: place a WRITE
 * packet without immediate at the address of its extension (R_Key checked
 * for REMOTE_WRITE over its payload), remember its opcode for the in-order
 * bookkeeping, and ask for a SACK NAK. Anything else (or a failed check:
 * the in-order arrival reports it) is dropped. Counted per QP.
 */
enum roce_sr_ooo roce_sr_resp_ooo(struct roce_qp *qp,
				  const struct roce_pkt *pkt,
				  const struct rte_mbuf *m, uint32_t psn);

/**
 * Place an in-order WRITE packet of an SR QP through its extension (the
 * address of its payload) instead of the FIRST packet's RETH: the FIRST
 * may have been placed out of order.
 * @return ROCE_OK or ROCE_ERR_LOC_ACCESS (key, bounds, rights)
 */
enum roce_err roce_sr_resp_place(struct roce_qp *qp,
				 const struct roce_pkt *pkt,
				 const struct rte_mbuf *m);

/**
 * After resp.epsn moved: take over the packets held from the new epsn on,
 * in order (epsn, MSN, message state as if they had arrived in order).
 * @return the PSNs taken over; an opcode sequence error among them sets
 *   resp.fatal (REM_INV_REQ) and the NAK
 */
uint32_t roce_sr_resp_merge(struct roce_qp *qp);

/**
 * Fill the SACK of the coalesced ACK: when packets are held ahead of
 * epsn, the ACK becomes a PSN sequence error NAK at epsn with the SACK
 * extension written to @p srx. Returns false (send the ACK as it is) when
 * nothing is held or the pending response is another NAK.
 */
bool roce_sr_resp_sack(struct roce_qp *qp, uint32_t *psn, uint8_t *syndrome,
		       uint8_t srx[ROCE_SRX_SACK_LEN]);

/* ---- completer and requester (roce_comp.c, roce_req.c) ---- */

/**
 * A response arrived and the cumulative part is done: move the SACK
 * window to comp.psn and merge the SACK of @p pkt, if it has one.
 */
void roce_sr_comp_sync(struct roce_qp *qp, const struct roce_pkt *pkt);

/**
 * A retransmission round starts: after a NAK (@p timeout false) only the
 * PSNs up to the highest SACKed one are resent, after a timeout (or an RNR
 * wait) every PSN not SACKed.
 */
void roce_sr_round(struct roce_qp *qp, bool timeout);

/**
 * A NAK for the PSN the pending round already resends: when the SACKs
 * now reach beyond the end of the round, extend it up to the highest
 * SACKed PSN (IRN: every newly detected hole is resent at once): when the
 * requester has passed the old end, it goes back to resend from there.
 * @return true when the requester has to run
 */
bool roce_sr_round_extend(struct roce_qp *qp);

/**
 * Requester, in a retransmission round: true when the SEND/WRITE packet
 * at @p psn is not to be sent again (SACKed, or still in flight after a
 * NAK).
 */
bool roce_sr_req_skip(const struct roce_qp *qp, uint32_t psn);

/**
 * Completer: a READ response packet at @p psn arrived ahead of comp.psn
 * and was placed; record it.
 * @return false when it was already held (a duplicate)
 */
bool roce_sr_comp_read_ooo(struct roce_qp *qp, uint32_t psn);

/**
 * Completer: after an in-order READ response packet, move comp.psn over
 * the packets of the READ (up to @p last_psn) placed ahead of it.
 * @return the PSNs passed
 */
uint32_t roce_sr_comp_read_merge(struct roce_qp *qp, uint32_t last_psn);

/**
 * RTO_low for a local ACK timeout of @p tmo TSC cycles (tmo >>
 * ROCE_SR_RTO_LOW_SHIFT within [ROCE_SR_RTO_LOW_MIN_US,
 * ROCE_SR_RTO_LOW_MAX_US]); @p tmo itself or more means no RTO_low.
 */
uint64_t roce_sr_rto_low(uint64_t tmo);

/**
 * Requester: the packet at @p psn is sent at @p now (@p retrans: again).
 * Times one first transmission at a time; a retransmission drops the
 * timing (Karn's rule: its ACK may answer either copy).
 */
void roce_sr_rtt_sent(struct roce_qp *qp, uint32_t psn, bool retrans,
		      uint64_t now);

/**
 * Completer: comp.psn moved at @p now; when the timed PSN is behind it,
 * one round-trip sample goes into srtt and rttvar (and the gauge
 * sr_rtt_us).
 */
void roce_sr_rtt_acked(struct roce_qp *qp, uint64_t now);

/**
 * The early timer's distance for a local ACK timeout of @p tmo cycles: the
 * measured RTO (srtt + 4 rttvar, at least ROCE_SR_RTO_MIN_US or @p tmo
 * when shorter; no ceiling: a distance of @p tmo or more means the timeout
 * itself), or RTO_low before the first sample.
 */
uint64_t roce_sr_rto_rtt(const struct roce_qp *qp, uint64_t tmo);

/**
 * Completer, arming the retransmission timer of an SR QP at @p now for a
 * local ACK timeout of @p tmo cycles: the deadline to arm. At the tail
 * (at most ROCE_SR_TLP_PKTS PSNs unacknowledged and unSACKed, no probe yet
 * at comp.psn), or anywhere once a round trip was measured, it is now + the
 * early distance (roce_sr_rto_rtt(), doubled per early round at this
 * comp.psn) and comp.rto_deadline keeps now + @p tmo; otherwise now +
 * @p tmo. @p sending: called as the packet at req.psn is
 * sent (roce_comp_sent(), before req.psn_hwm counts it).
 */
uint64_t roce_sr_rto(struct roce_qp *qp, uint64_t now, uint64_t tmo,
		     bool sending);

/**
 * Completer, the retransmission timer of an SR QP expired at @p now. When
 * it ran early: at the tail, the unSACKed PSNs are resent once (a
 * tail-loss probe, counted in sr_tail_probes); elsewhere, once a round
 * trip was measured, the oldest PSN and the holes up to the highest SACKed
 * PSN (an early round, sr_early_rounds); the full timeout is still due.
 * No early round at a comp.psn whose request is a READ (@p read_oldest):
 * asked again, a responder sends the rest of the READ once more after
 * what it is sending, and Linux rxe queues every such stream. Against a
 * slow one (rxe under emulation, 1 MiB READs, 1 % loss) early rounds
 * stacked up a second of READ responses in front of the next request's
 * ACK, which ran out of retries; one early round a comp.psn still had rxe
 * send 3-4 times the packets and cost a third of the READ goodput. A lost
 * READ response is asked for at the next one that comes behind it
 * (go-back-N) or placed (SR), a lost tail by the tail-loss probe, a lost
 * request of a longer READ at the local ACK timeout.
 * @return the deadline to re-arm the timer at, 0 when this expiry is the
 *   local ACK timeout itself (handle it as such)
 */
uint64_t roce_sr_rto_expired(struct roce_qp *qp, uint64_t now,
			     bool read_oldest);

/**
 * Completer, a response came at @p now that does not advance comp.psn (a
 * READ response behind a lost one): the responder is alive and still
 * sending, and a round already asked for what was lost, whose answer
 * comes after what it is sending. Moves an armed early deadline to an RTO
 * (doubled per early round at this comp.psn) from @p now; the local ACK
 * timeout stays where it is. Without it a slow responder's long READ
 * (1 MiB from Linux rxe under emulation: 30-70 ms) had the early rounds
 * ask again and again, and the responder queued every request's stream.
 * @return the expiry to re-arm the timer at, 0 when none is armed early
 */
uint64_t roce_sr_rto_push(struct roce_qp *qp, uint64_t now);

/** Reset the SR state of the three engines (RESET->INIT, RTR, RTS). */
void roce_sr_reset(struct roce_qp *qp);

#endif /* ROCE_SR_H */

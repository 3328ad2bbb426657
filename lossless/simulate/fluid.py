"""N senders into one switch egress port, in fixed steps of a fluid model.

Why fluid and fixed-step: the questions are about rates and queue levels (when the queue
crosses Kmin, when a PG reaches the dynamic threshold, how the senders' rates move), over
milliseconds, at 64 senders and 400G: a packet-level event simulation would handle ~5
million frames per 10 ms and need a compiled core to stay within seconds; a fluid step
costs a few numpy operations on arrays of N however fast the links are. The step (100 ns
by default, under the serialisation of one 9 KB frame at 400G and under the 1 us of a
PFC response) bounds the timing error of every delay (each is rounded to whole steps).
Where a frame-exact answer matters, the headroom, `headroom_check.py` walks frames instead.

Per step, in this order (docs/simulate.md has the assumptions and what is left out):
1. each sender sends at its DCQCN rate unless the pause its ingress PG asked for has taken
   effect at its end: the headroom model's in-flight time after the switch decided it,
   less the cable's way back, plus its last frame;
2. what it sent a cable's delay ago arrives in its ingress PG: into the shared pool up to
   the dynamic threshold alpha * (B - shared bytes in use), then into the PG's headroom
   (pausing the sender), and beyond the planned xoff it is dropped;
3. the egress port serves the queue (every PG's bytes, FIFO: each PG drains in proportion
   to what it holds) at its speed, freeing a PG's headroom before its shared bytes; a PG
   whose headroom is empty and that holds less than the threshold less its xon resumes its
   sender; what arrives in a PG while it is paused is its pause's in-flight bytes (the
   headroom model's worst case is that nothing drains meanwhile);
4. departing bytes are ECN-marked with RED's probability on the instantaneous queue (0
   below Kmin, Pmax at Kmax, every frame above); the receiver returns a CNP for a marked
   frame, no more often than min_time_between_cnps per flow, which reaches the sender after
   both cables;
5. each sender runs DCQCN's reaction point (`dcqcn.py`).

The other PGs of the switch that share the pool sit where the planner's PFC trigger puts
them: (n - N) PGs holding T each, so that N PGs at T see the same threshold the plan
states (T = alpha * B / (1 + n * alpha)).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lossless.simulate.dcqcn import Dcqcn
from lossless.simulate.scenario import Scenario


@dataclasses.dataclass
class Result:
    step_s: float
    duration_s: float
    queue: np.ndarray  # bytes in the egress queue, per step
    kmin: int
    kmax: int
    trigger: int  # the planner's T (one PG's shared bytes when PFC fires with n PGs congested)
    first_mark_s: float | None
    first_cut_s: float | None
    first_pause_s: float | None
    paused_share: float  # of sender-time, paused
    dropped_bytes: float
    delivered: np.ndarray  # bytes per sender
    converged_s: float | None
    max_headroom: np.ndarray  # the most headroom each PG used, bytes
    after_pause: np.ndarray  # the most bytes a PG took in during one pause of its sender
    rates: np.ndarray  # each sender's DCQCN rate at the end, bits/s

    @property
    def throughput_bps(self) -> np.ndarray:
        return self.delivered * 8 / self.duration_s

    @property
    def fairness(self) -> float:
        """Jain's index of the senders' throughput: 1 every sender alike, 1/N one alone."""
        x = self.throughput_bps
        total = float((x * x).sum())
        return float(x.sum() ** 2 / (len(x) * total)) if total else 1.0

    @property
    def pause_before_mark(self) -> bool:
        return self.first_pause_s is not None and (
            self.first_mark_s is None or self.first_pause_s < self.first_mark_s
        )


def _delay(seconds: np.ndarray | float, step: float) -> np.ndarray:
    return np.maximum(1, np.rint(np.asarray(seconds) / step)).astype(np.int64)


def simulate(
    sc: Scenario,
    cc: Dcqcn | None,
    duration_s: float,
    step_s: float = 100e-9,
    background: bool = True,
    drain: bool = True,
) -> Result:
    """Run the port for duration_s; cc None: congestion control off (line rate, PFC only);
    drain False: the egress port is itself paused by its receiver and sends nothing (the
    case the headroom is sized for: every byte after the pause stays in the headroom)."""
    s = sc.senders
    n = len(s)
    dt = step_s
    steps = round(duration_s / dt)
    idx = np.arange(n)
    line = np.array([x.speed_bps for x in s])
    prop = _delay(np.array([x.propagation_s for x in s]), dt)
    # the pause takes effect at the sender the in-flight time after the trigger, less its
    # bytes already on the way back, and once its last frame is out
    react = np.array(
        [(x.in_flight + x.sender_frame) * 8 / x.speed_bps - x.propagation_s for x in s]
    )
    pause_delay = _delay(react, dt)
    cnp_delay = _delay(np.array([x.propagation_s for x in s]) + sc.propagation_s, dt)
    ring = int(max(prop.max(), pause_delay.max(), cnp_delay.max())) + 1
    sent = np.zeros((ring, n))
    asked = np.zeros((ring, n), dtype=bool)  # the switch's pause state per step
    cnps = np.zeros((ring, n), dtype=bool)
    # where each sender's delayed value sits in the flattened rings, by the step's slot: one
    # take a step instead of an index computation (the loop's cost is numpy calls, not data)
    rows = np.arange(ring)[:, None]
    read_pause = ((rows - pause_delay) % ring) * n + idx
    read_sent = ((rows - prop) % ring) * n + idx
    read_cnp = ((rows - cnp_delay) % ring) * n + idx
    flat_sent, flat_asked, flat_cnps = sent.reshape(-1), asked.reshape(-1), cnps.reshape(-1)
    xoff = np.array([x.xoff for x in s], dtype=float)
    xon = np.array([x.xon for x in s], dtype=float)
    frame = np.array([x.frame for x in s], dtype=float)

    bg = max(0, sc.sharing_pgs - n) * sc.trigger if background else 0.0
    shared = np.zeros(n)
    head = np.zeros(n)
    paused = np.zeros(n, dtype=bool)
    in_pause = np.zeros(n)  # bytes arrived since the PG's pause began
    after_pause = np.zeros(n)
    serve = sc.speed_bps * dt / 8 if drain else 0.0
    span = max(1, sc.kmax - sc.kmin)

    rate = line.copy()
    target = line.copy()
    alpha = np.zeros(n)
    reacting = np.zeros(n, dtype=bool)  # has had a CNP: alpha and the increase run
    cnp_seen = np.zeros(n, dtype=bool)  # in this alpha period
    last_cut = np.full(n, -np.inf)
    last_cnp = np.full(n, -np.inf)
    marks = np.zeros(n)
    timer = np.zeros(n)
    byte_count = np.zeros(n)
    t_stage = np.zeros(n)
    b_stage = np.zeros(n)
    alpha_every = max(1, round(cc.alpha_period / dt)) if cc else 0

    queue = np.zeros(steps, dtype=np.float32)
    delivered = np.zeros(n)
    max_head = np.zeros(n)
    paused_steps = 0
    pausing = counted = False
    dropped = 0.0
    first_mark = first_cut = first_pause = None
    anywhere = 0.0
    settled_from: int | None = 0
    for k in range(steps):
        now = k * dt
        slot = k % ring
        # 1. senders
        stopped = flat_asked.take(read_pause[slot])
        tx = np.where(stopped, 0.0, rate) * (dt / 8)
        sent[slot] = tx
        # 2. ingress
        arriving = flat_sent.take(read_sent[slot])
        threshold = max(0.0, sc.alpha * (sc.pool_bytes - bg - shared.sum()))
        room = np.where(paused, 0.0, np.maximum(threshold - shared, 0.0))
        into_shared = np.minimum(arriving, room)
        shared += into_shared
        extra = arriving - into_shared
        newly = (extra > 0) & ~paused
        newly_any = bool(newly.any())
        if newly_any:
            paused |= newly
            if first_pause is None:
                first_pause = now
        head += extra
        if pausing or newly_any:
            in_pause = np.where(paused, in_pause + extra, 0.0)
            np.maximum(after_pause, in_pause, out=after_pause)
            counted = True
        elif counted:  # every PG resumed last step: their counts start again from 0
            in_pause[:] = 0.0
            counted = False
        over = np.maximum(head - xoff, 0.0)
        if over.any():
            dropped += float(over.sum())
            head -= over
        np.maximum(max_head, head, out=max_head)
        # 3. egress
        held = shared + head
        total = float(held.sum())
        queue[k] = total
        if total > 0 and serve:
            out = held * (min(serve, total) / total)
            from_head = np.minimum(head, out)
            head -= from_head
            shared -= out - from_head
            delivered += out
        else:
            out = np.zeros(n)
        # resume once the headroom is empty (it drains first) and the PG is xon below the
        # threshold: a PG resumed with bytes in its headroom starts its next pause with them
        paused &= ~((held - out <= threshold - xon) & (head <= 0.0))
        asked[slot] = paused
        paused_now = int(np.count_nonzero(paused))
        paused_steps += paused_now
        pausing = paused_now > 0
        # 4. marking and the receiver's CNPs
        cnps[slot] = False
        if total > sc.kmin:
            p = 1.0 if total >= sc.kmax else sc.pmax * (total - sc.kmin) / span
            fresh = p * out / frame
            if first_mark is None:
                anywhere += float(fresh.sum())  # the port's first marked frame, any flow's
                if anywhere >= 1:
                    first_mark = now
            if cc is not None:
                marks += fresh
                marked = marks >= 1
                if marked.any():
                    send = marked & (now - last_cnp >= cc.cnp_interval)
                    last_cnp = np.where(send, now, last_cnp)
                    cnps[slot] = send
                    marks[marked] -= np.floor(marks[marked])
        if cc is None:
            continue
        # 5. DCQCN reaction points
        got = flat_cnps.take(read_cnp[slot])
        if got.any():
            first = got & ~reacting
            alpha[first] = cc.initial_alpha
            if cc.rate_on_first_cnp:
                rate[first] = target[first] = cc.rate_on_first_cnp
            reacting |= got
            cnp_seen |= got
            cut = got & (now - last_cut >= cc.reduce_period)
            if cut.any():
                if first_cut is None:
                    first_cut = now
                # the target follows the rate at every cut (clamp_tgt_rate) or only after
                # an increase since the last one: cuts in a row keep the target they had
                rose = b_stage > 0
                if cc.clamp_after_timer:
                    rose |= t_stage > 0
                clamp = cut if cc.clamp_always else cut & rose
                target[clamp] = rate[clamp]
                factor = np.maximum(1 - alpha[cut] / 2, cc.min_factor)
                rate[cut] = np.maximum(rate[cut] * factor, cc.min_rate)
                last_cut[cut] = now
                timer[cut] = byte_count[cut] = t_stage[cut] = b_stage[cut] = 0
        if alpha_every and k % alpha_every == 0 and reacting.any():
            alpha = np.where(reacting, (1 - cc.g) * alpha + np.where(cnp_seen, cc.g, 0.0), alpha)
            cnp_seen[:] = False
        growing = reacting & (rate < line)
        if growing.any():
            timer += np.where(growing, dt, 0.0)
            byte_count += np.where(growing, tx, 0.0)
            by_time = timer >= cc.increase_period
            by_bytes = byte_count >= cc.increase_bytes
            event = growing & (by_time | by_bytes)
            if event.any():
                t_stage += by_time & growing
                b_stage += by_bytes & growing
                timer[by_time] = 0
                byte_count[by_bytes] -= cc.increase_bytes
                high = np.maximum(t_stage, b_stage)
                low = np.minimum(t_stage, b_stage)
                hyper = event & (low > cc.threshold)
                additive = event & ~hyper & (high >= cc.threshold)
                target += np.where(additive, cc.ai_rate, 0.0)
                target += np.where(hyper, (low - cc.threshold) * cc.hai_rate, 0.0)
                np.minimum(target, line, out=target)
                rate = np.where(event, (rate + target) / 2, rate)
        # converged: the senders' total within 10 % of the port's speed from here on
        offered = float(rate.sum())
        if abs(offered - sc.speed_bps) > 0.1 * sc.speed_bps:
            settled_from = None
        elif settled_from is None:
            settled_from = k
    return Result(
        step_s=dt,
        duration_s=steps * dt,
        queue=queue,
        kmin=sc.kmin,
        kmax=sc.kmax,
        trigger=sc.trigger,
        first_mark_s=first_mark,
        first_cut_s=first_cut,
        first_pause_s=first_pause,
        paused_share=paused_steps / max(1, steps * n),
        dropped_bytes=dropped,
        delivered=delivered,
        converged_s=None if cc is None or settled_from is None else settled_from * dt,
        max_headroom=max_head,
        after_pause=after_pause,
        rates=rate,
    )

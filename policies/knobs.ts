/** Knobs more than one policy takes, defined once (a module of its own: importing a policy module would declare that policy early). */
import { SPOT_NOTICE_SECONDS } from "eks-platform-kernel";
import type { Knob } from "./declare";

/** The Spot notice: the drain window of NodePools that may launch Spot (`drain-window`, `workload-request-path`). */
export const SPOT_NOTICE_KNOB: Knob<number> = {
    type: "integer",
    minimum: 1,
    default: SPOT_NOTICE_SECONDS,
    description: "Seconds of notice before EC2 reclaims a Spot instance: the drain window of NodePools that may launch Spot.",
};

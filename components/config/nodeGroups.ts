import { z } from "zod";
import { dnsLabel } from "./common";

/**
 * `nodeGroups` in stack config: a map keyed by node group name. The per-group schema is defined
 * by the node groups issue; until then no group may be declared.
 */
export const nodeGroupsSchema = z.record(dnsLabel, z.never());

export type NodeGroupsConfig = z.output<typeof nodeGroupsSchema>;

import type { Locate } from "../../tools/gate/report";

/** Names resources by URN, so assertions on text see exactly what the gate reported. */
export const byUrn: Locate = (urn) => ({ resource: { type: "t", name: urn ?? "stack" }, label: urn ?? "stack" });

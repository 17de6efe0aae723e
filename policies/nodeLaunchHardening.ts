import { asArray, asNumeric, asString, field, path } from "eks-platform-kernel";
import { EBS_WHY, hopLimitViolation, IMDS_WHY, MAX_HOP_LIMIT, unencryptedBlockDevices, Verdicts, violation } from "eks-platform-evaluation";
import { declareResourcePolicy, Knobs } from "./declare";

const LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate";
const SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup";
const INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule";
const SG_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule";

const OPEN = ["0.0.0.0/0", "::/0"];
const SSH_WHY =
    "SSH on every node is exposed to the whole internet: credential stuffing and any sshd flaw become a foothold inside the cluster network with the node role's permissions";
const SSH_FIX =
    "remove the rule and reach nodes with SSM Session Manager (AmazonSSMManagedInstanceCore), or limit the source to a bastion or VPN range";

/** Config of `node-launch-hardening`. */
export interface NodeLaunchHardeningConfig {
    /** Highest allowed `metadataOptions.httpPutResponseHopLimit`. Defaults to `1`. */
    maxHopLimit: number;
}

const knobs: Knobs<NodeLaunchHardeningConfig> = { maxHopLimit: MAX_HOP_LIMIT };

/** True when a rule for `protocol` and `from`..`to` lets in TCP port 22. */
export function coversSsh(protocol: unknown, from: unknown, to: unknown): boolean {
    const p = typeof protocol === "number" ? String(protocol) : (asString(protocol) ?? "").toLowerCase();
    if (p === "-1" || p === "all") {
        return true;
    }
    if (p !== "tcp" && p !== "6") {
        return false;
    }
    const lo = asNumeric(from);
    const hi = asNumeric(to);
    // A TCP rule without ports is invalid in AWS; treat a missing bound as open rather than guess.
    return (lo === undefined || lo <= 22) && (hi === undefined || hi >= 22);
}

function openSources(...lists: unknown[]): string[] {
    const out: string[] = [];
    for (const list of lists) {
        for (const cidr of Array.isArray(list) ? asArray(list) : [list]) {
            if (typeof cidr === "string" && OPEN.includes(cidr.trim())) {
                out.push(cidr.trim());
            }
        }
    }
    return out;
}

/**
 * Node launch settings: launch templates require IMDSv2, set a metadata hop limit of at most
 * `maxHopLimit` (unset leaves it to the AMI, and AMIs registered for IMDSv2 launch with 2) and
 * encrypt their EBS volumes; no security group (inline rules or rule resources) opens TCP 22 to
 * 0.0.0.0/0 or ::/0.
 */
export const nodeLaunchHardening = declareResourcePolicy<NodeLaunchHardeningConfig>({
    name: "node-launch-hardening",
    description:
        "Launch templates require IMDSv2, keep the metadata hop limit low and encrypt volumes; no security group opens SSH to the internet.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires: "IMDSv2 with a hop limit ≤ `maxHopLimit` and encrypted volumes in launch templates; no SSH open to the world",
        checks: 'launch templates set `metadataOptions.httpTokens: "required"` and a `metadataOptions.httpPutResponseHopLimit` of at most `maxHopLimit` (unset is reported: AMIs registered for IMDSv2, AL2023 among them, launch with 2) and encrypt every EBS mapping (`encrypted` `"true"` or `true`); no security group inline ingress, `SecurityGroupIngressRule` or ingress `SecurityGroupRule` opens TCP 22 (or all protocols) to `0.0.0.0/0` or `::/0`',
        knobs: { maxHopLimit: "`2` lets pod-network containers read instance metadata" },
    },
    validateResource: (args, reportViolation, config) => {
        const props = args.props;
        const verdicts = new Verdicts();
        switch (args.type) {
            case LAUNCH_TEMPLATE: {
                const subject = `LaunchTemplate ${args.name}`;
                verdicts.judge(`${subject} metadataOptions`, () => {
                    const tokens = path(props, "metadataOptions", "httpTokens");
                    if (tokens !== "required") {
                        reportViolation(
                            violation(
                                `${subject} does not set metadataOptions.httpTokens: "required"${tokens === undefined ? "" : ` (it is ${JSON.stringify(tokens)})`}`,
                                IMDS_WHY,
                                'set metadataOptions: { httpTokens: "required", httpEndpoint: "enabled", httpPutResponseHopLimit: 1 } (a hop limit of 2 lets every pod reach the node role\'s credentials; raise it only for pods that must read instance metadata)',
                            ),
                        );
                    }
                });
                verdicts.judge(`${subject} hop limit`, () => {
                    const key = "metadataOptions.httpPutResponseHopLimit";
                    const hops = path(props, "metadataOptions", "httpPutResponseHopLimit");
                    if (hops === undefined || hops === null) {
                        reportViolation(
                            violation(
                                `${subject} does not set ${key}`,
                                "the instance then gets the AMI's or the account's default, and AMIs registered for IMDSv2 (AL2023 among them) launch with a hop limit of 2, which lets every pod read the node role's credentials",
                                `set ${key}: 1`,
                            ),
                        );
                    } else if (asNumeric(hops) === undefined || (asNumeric(hops) as number) > config.maxHopLimit) {
                        reportViolation(hopLimitViolation(subject, key, hops, config.maxHopLimit));
                    }
                });
                verdicts.judge(`${subject} blockDeviceMappings`, () => {
                    for (const { index, device } of unencryptedBlockDevices(field(props, "blockDeviceMappings"))) {
                        reportViolation(
                            violation(
                                `${subject} block device ${device} is not encrypted (ebs.encrypted is not "true")`,
                                EBS_WHY,
                                `set blockDeviceMappings[${index}].ebs.encrypted: "true" (optionally with kmsKeyId)`,
                            ),
                        );
                    }
                });
                break;
            }
            case SECURITY_GROUP: {
                const rules = verdicts.read(`SecurityGroup ${args.name}`, () => asArray(field(props, "ingress"))) ?? [];
                for (let i = 0; i < rules.length; i++) {
                    verdicts.judge(`SecurityGroup ${args.name} ingress[${i}]`, () => {
                        const rule = rules[i];
                        const sources = openSources(field(rule, "cidrBlocks"), field(rule, "ipv6CidrBlocks"));
                        if (sources.length > 0 && coversSsh(field(rule, "protocol"), field(rule, "fromPort"), field(rule, "toPort"))) {
                            reportViolation(
                                violation(
                                    `SecurityGroup ${args.name} ingress[${i}] opens port 22 to ${sources.join(" and ")}`,
                                    SSH_WHY,
                                    SSH_FIX,
                                ),
                            );
                        }
                    });
                }
                break;
            }
            case INGRESS_RULE:
                verdicts.judge(`SecurityGroupIngressRule ${args.name}`, () => {
                    const sources = openSources(field(props, "cidrIpv4"), field(props, "cidrIpv6"));
                    if (sources.length > 0 && coversSsh(field(props, "ipProtocol"), field(props, "fromPort"), field(props, "toPort"))) {
                        reportViolation(
                            violation(`SecurityGroupIngressRule ${args.name} opens port 22 to ${sources.join(" and ")}`, SSH_WHY, SSH_FIX),
                        );
                    }
                });
                break;
            case SG_RULE:
                verdicts.judge(`SecurityGroupRule ${args.name}`, () => {
                    if (field(props, "type") !== "ingress") {
                        return;
                    }
                    const sources = openSources(field(props, "cidrBlocks"), field(props, "ipv6CidrBlocks"));
                    if (sources.length > 0 && coversSsh(field(props, "protocol"), field(props, "fromPort"), field(props, "toPort"))) {
                        reportViolation(
                            violation(`SecurityGroupRule ${args.name} opens port 22 to ${sources.join(" and ")}`, SSH_WHY, SSH_FIX),
                        );
                    }
                });
                break;
            default:
                args.notApplicable("not a launch template, security group or security group rule");
        }
        verdicts.finish();
    },
});

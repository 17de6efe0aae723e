/**
 * components/access.schema.ts rule by rule: who gets an access entry, and which roles must stay
 * apart (the deployer, the read-only preview role, the admins).
 */
import { expect } from "chai";
import { accessSchema, podSecuritySchema, roleArn } from "../../components/access.schema";

const DEPLOYER = "arn:aws:iam::123456789012:role/deployer";
const PREVIEW = "arn:aws:iam::123456789012:role/preview";
const ADMIN = "arn:aws:iam::123456789012:role/admin";
const DRIFT = "arn:aws:iam::123456789012:role/drift";

function problems(value: unknown): string[] {
    const result = accessSchema.safeParse(value);
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("components/access.schema.ts: access entries", () => {
    it("takes IAM role ARNs of any partition, with a path, and nothing else (IAM ARN format arn:<partition>:iam::<account>:role/<path><name>)", () => {
        for (const arn of [
            DEPLOYER,
            "arn:aws-us-gov:iam::123456789012:role/ci/deployer",
            "arn:aws-cn:iam::123456789012:role/a+b=c,d.e@f-g_h",
            "arn:aws-iso-b:iam::123456789012:role/x",
        ]) {
            expect(roleArn.safeParse(arn).success, arn).to.equal(true);
        }
        for (const arn of [
            "arn:aws:iam::123456789012:user/deployer",
            "arn:aws:iam::12345678901:role/deployer",
            "arn:aws:iam::123456789012:role/",
            "arn:aws:sts::123456789012:assumed-role/deployer/session",
            "xarn:aws:iam::123456789012:role/deployer",
            "arn:aws:iam::123456789012:role/deployer name",
            "arn:AWS:iam::123456789012:role/deployer",
        ]) {
            expect(roleArn.safeParse(arn).error?.issues[0].message, arn).to.equal(
                "must be an IAM role ARN such as arn:aws:iam::123456789012:role/platform-admin",
            );
        }
    });

    it("defaults admins to none and the preview role to unset", () => {
        expect(accessSchema.parse({ deployer: DEPLOYER })).to.deep.equal({ deployer: DEPLOYER, admins: [] });
        expect(problems({ deployer: DEPLOYER, admins: [ADMIN], preview: PREVIEW })).to.deep.equal([]);
    });

    it("keeps the preview role apart from the deployer: previews run branch code (EKS access entries: one principal, one entry)", () => {
        expect(problems({ deployer: DEPLOYER, preview: DEPLOYER })).to.deep.equal([
            "preview: is the deployer: previews run branch code and must not hold the role that changes the stack",
        ]);
    });

    it("names each admin that is the deployer, the preview role, or listed twice, by index (EKS CreateAccessEntry: ResourceInUseException for a second entry)", () => {
        expect(problems({ deployer: DEPLOYER, preview: PREVIEW, admins: [ADMIN, DEPLOYER, PREVIEW, ADMIN] })).to.deep.equal([
            "admins.1: is the deployer, which already gets the cluster-admin entry; EKS rejects a second entry for it",
            "admins.2: is the preview role: previews run branch code, so that role must stay read-only",
            "admins.3: is listed twice",
        ]);
        // Without a preview role, no admin is one.
        expect(problems({ deployer: DEPLOYER, admins: [ADMIN] })).to.deep.equal([]);
    });

    it("keeps the drift check's role apart from the deployer, the preview role and the admins: it reads Secrets, writes nothing, and holds one entry", () => {
        expect(problems({ deployer: DEPLOYER, preview: PREVIEW, admins: [ADMIN], drift: DRIFT })).to.deep.equal([]);
        expect(problems({ deployer: DEPLOYER, drift: DEPLOYER })).to.deep.equal([
            "drift: is the deployer: the drift check only reads, and a principal holds one access entry",
        ]);
        expect(problems({ deployer: DEPLOYER, preview: PREVIEW, drift: PREVIEW })).to.deep.equal([
            "drift: is the preview role: previews run branch code, which must not read the cluster's Secrets",
        ]);
        expect(problems({ deployer: DEPLOYER, drift: DRIFT, admins: [ADMIN, DRIFT] })).to.deep.equal([
            "admins.1: is the drift role, whose entry stays read-only: a principal holds one access entry",
        ]);
        // Without a drift role, no admin is one.
        expect(problems({ deployer: DEPLOYER, preview: PREVIEW, admins: [ADMIN] })).to.deep.equal([]);
    });

    it("takes Pod Security Admission levels, warn and audit optional (Kubernetes Pod Security Standards: privileged, baseline, restricted)", () => {
        expect(podSecuritySchema.parse({ enforce: "restricted" })).to.deep.equal({ enforce: "restricted" });
        expect(podSecuritySchema.safeParse({ enforce: "strict" }).success).to.equal(false);
    });
});

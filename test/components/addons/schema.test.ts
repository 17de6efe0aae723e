import { expect } from "chai";
import { PROJECT } from "../../../components/config";
import { fixture, parse, problems } from "../config/fixtures";

describe("stack config: add-ons", () => {
    it("fills every default of the add-on sections", () => {
        const addons = parse(
            fixture((v) => {
                v.addons = {
                    ebsCsiDriver: { version: "v1.60.0-eksbuild.1" },
                    loadBalancerController: { chartVersion: "1.13.3" },
                    metricsServer: { version: "v0.8.0-eksbuild.2" },
                };
            }),
        ).addons;
        expect(addons.ebsCsiDriver?.storageClass).to.deep.equal({ kmsKey: "platform", reclaimPolicy: "Delete" });
        expect(addons.ebsCsiDriver?.controller.replicas).to.equal(2);
        expect(addons.loadBalancerController?.replicas).to.equal(2);
        expect(addons.metricsServer.replicas).to.equal(2);
        expect(addons.metricsServer.resources.requests).to.deep.equal({ cpu: "100m", memory: "200Mi" });
    });

    it("requires the section, naming it", () => {
        expect(problems(fixture((v) => delete v.addons))).to.deep.equal([`${PROJECT}:addons: is required`]);
    });

    it("names every bad add-on key in one error", () => {
        const found = problems(
            fixture((v) => {
                v.addons.ebsCsiDriver.version = "latest";
                v.addons.ebsCsiDriver.storageClass = { kmsKey: "mine", reclaimPolicy: "Recycle" };
                v.addons.loadBalancerController = { chartVersion: "9.9.9", replicas: 1 };
                v.addons.metricsServer.resources = { requests: { cpu: "2", memory: "200Mi" }, limits: { cpu: "1", memory: "400Mi" } };
                v.addons.metricsServer.version2 = "v1";
            }),
        );
        expect(found).to.have.length(7);
        expect(found[0]).to.match(/^eks-platform:addons\.ebsCsiDriver\.version: must be a pinned add-on version/);
        expect(found.join("\n")).to.include(
            "eks-platform:addons.ebsCsiDriver.storageClass.kmsKey: must be platform, aws-managed or a KMS key ARN",
        );
        expect(found.join("\n")).to.include("eks-platform:addons.ebsCsiDriver.storageClass.reclaimPolicy:");
        expect(found.join("\n")).to.match(
            /eks-platform:addons\.loadBalancerController\.chartVersion: must be a chart version whose IAM policy the platform keeps: 1\.13\.3/,
        );
        expect(found.join("\n")).to.include("eks-platform:addons.loadBalancerController.replicas: must be at least 2");
        expect(found.join("\n")).to.include("eks-platform:addons.metricsServer.resources.requests.cpu: 2 exceeds the limit 1");
        expect(found.join("\n")).to.include("eks-platform:addons.metricsServer.version2: unknown key");
    });

    it("accepts a customer-managed KMS key by ARN and Retain", () => {
        const config = parse(
            fixture(
                (v) =>
                    (v.addons.ebsCsiDriver.storageClass = {
                        kmsKey: "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab",
                        reclaimPolicy: "Retain",
                    }),
            ),
        );
        expect(config.addons.ebsCsiDriver?.storageClass.kmsKey).to.equal("arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab");
    });
});

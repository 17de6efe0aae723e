/** The control plane the node-group tests build their groups on, under mocks. */
import * as k8s from "@pulumi/kubernetes";
import { Cluster } from "../../../components/cluster";

/** The node groups' arguments for a cluster: its own provider and the VPC they run in. */
export function around(cluster: Cluster) {
    return {
        cluster,
        provider: new k8s.Provider(`${cluster.name}-k8s`, { kubeconfig: cluster.kubeconfig }),
        region: "us-east-1",
        vpcCidr: "10.0.0.0/16",
    };
}

/** A private 1.34 cluster named `demo` (construct it after the mocks are installed). */
export function demoCluster(): Cluster {
    return new Cluster("cp", {
        clusterName: "demo",
        keyAdministrator: "arn:aws:iam::123456789012:role/deployer",
        version: "1.34",
        supportType: "EXTENDED",
        vpcId: "vpc-1",
        privateSubnetIds: ["subnet-p1", "subnet-p2"],
        publicSubnetIds: ["subnet-u1", "subnet-u2"],
        endpoint: { publicAccess: false, publicAccessCidrs: [], privateAccessCidrs: ["10.99.0.0/16"], privateAccessSecurityGroupIds: [] },
        logTypes: ["api"],
        logRetentionDays: 30,
        serviceCidr: "172.20.0.0/16",
        addons: { vpcCni: "v1.20.4-eksbuild.1", kubeProxy: "v1.34.0-eksbuild.2", podIdentityAgent: "v1.3.8-eksbuild.2" },
    });
}

package kube

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	quantity "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The objects are what kube-apiserver stores after defaulting and
// admission, so their sizes are real: defaulted fields, the service
// account token volume, default tolerations and managedFields as server-
// side field tracking records them (fieldsV1 abbreviated to the fields
// each manager sets).

const (
	appImage      = "registry.k8s.io/nginx-slim:0.27"
	kubeletVer    = "v1.33.1"
	containerPort = 80
)

// nameChars are apiserver's generateName alphabet
// (k8s.io/apimachinery pkg/util/rand: no vowels, no confusable digits).
const nameChars = "bcdfghjklmnpqrstvwxz2456789"

// randName returns base plus a 5-character suffix, as generateName does.
func randName(base string) string {
	b := make([]byte, 5)
	for i := range b {
		b[i] = nameChars[rand.IntN(len(nameChars))]
	}
	return base + string(b)
}

// newUID returns a random UID in UUID form, as the apiserver assigns.
func newUID() types.UID {
	return types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", rand.Uint32(), rand.Uint32()&0xffff,
		0x4000|rand.Uint32()&0x0fff, 0x8000|rand.Uint32()&0x3fff, rand.Uint64()&0xffffffffffff))
}

// managed is a managedFields entry of an Update by manager (of
// subresource sub when not "").
func managed(manager, sub, fields string, at time.Time) metav1.ManagedFieldsEntry {
	t := metav1.NewTime(at)
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: "v1", Time: &t, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields), Subresource: sub}
}

// setManaged replaces o's managedFields entry of manager and subresource.
func setManaged(o object, e metav1.ManagedFieldsEntry) {
	mf := o.GetManagedFields()
	for i := range mf {
		if mf[i].Manager == e.Manager && mf[i].Subresource == e.Subresource {
			mf[i] = e
			o.SetManagedFields(mf)
			return
		}
	}
	o.SetManagedFields(append(mf, e))
}

func meta(name, ns string, labels map[string]string, now time.Time) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, UID: newUID(), CreationTimestamp: metav1.NewTime(now), Labels: labels}
}

func controllerRef(kind, apiVersion, name string, uid types.UID) []metav1.OwnerReference {
	t := true
	return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &t, BlockOwnerDeletion: &t}}
}

func newNamespace(name string, now time.Time) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: meta(name, "", map[string]string{"kubernetes.io/metadata.name": name}, now),
		Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	setManaged(ns, managed("kubectl-create", "", `{"f:status":{"f:phase":{}}}`, now))
	return ns
}

// newServiceAccount is the namespace's "default" ServiceAccount as the
// serviceaccount controller creates it (pkg/controller/serviceaccount/
// serviceaccounts_controller.go), which the ServiceAccount admission
// plugin gives every pod.
func newServiceAccount(ns string, now time.Time) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: meta("default", ns, nil, now)}
	return sa
}

func appLabels(app string) map[string]string { return map[string]string{"app": app} }

func podTemplate(app string) corev1.PodTemplateSpec {
	grace := int64(30)
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: appLabels(app)},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: app, Image: appImage, Ports: []corev1.ContainerPort{{ContainerPort: containerPort, Protocol: corev1.ProtocolTCP}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: quantity.MustParse("10m"), corev1.ResourceMemory: quantity.MustParse("16Mi")}},
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy: corev1.PullIfNotPresent,
			}},
			RestartPolicy: corev1.RestartPolicyAlways, TerminationGracePeriodSeconds: &grace, DNSPolicy: corev1.DNSClusterFirst,
			SecurityContext: &corev1.PodSecurityContext{}, SchedulerName: corev1.DefaultSchedulerName,
		},
	}
}

func newDeployment(ns, name string, replicas int32, now time.Time) *appsv1.Deployment {
	rev, deadline := int32(10), int32(600)
	q := intstr.FromString("25%")
	d := &appsv1.Deployment{ObjectMeta: meta(name, ns, appLabels(name), now),
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: appLabels(name)},
			Template: podTemplate(name), RevisionHistoryLimit: &rev, ProgressDeadlineSeconds: &deadline,
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &q, MaxSurge: &q}}}}
	d.Generation = 1
	d.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": fmt.Sprintf(
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"labels":{"app":%q},"name":%q,"namespace":%q},"spec":{"replicas":%d,"selector":{"matchLabels":{"app":%q}},"template":{"metadata":{"labels":{"app":%q}},"spec":{"containers":[{"image":%q,"name":%q,"ports":[{"containerPort":80}],"resources":{"requests":{"cpu":"10m","memory":"16Mi"}}}]}}}}`,
		name, name, ns, replicas, name, name, appImage, name)}
	setManaged(d, managed("kubectl-client-side-apply", "",
		`{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}`, now))
	return d
}

func newService(ns, name string, now time.Time) *corev1.Service {
	single := corev1.IPFamilyPolicySingleStack
	local := corev1.ServiceInternalTrafficPolicyCluster
	ip := fmt.Sprintf("10.96.%d.%d", rand.IntN(250), 1+rand.IntN(250))
	s := &corev1.Service{ObjectMeta: meta(name, ns, appLabels(name), now),
		Spec: corev1.ServiceSpec{Selector: appLabels(name), Type: corev1.ServiceTypeClusterIP, ClusterIP: ip, ClusterIPs: []string{ip},
			Ports:      []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(containerPort)}},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, IPFamilyPolicy: &single, InternalTrafficPolicy: &local,
			SessionAffinity: corev1.ServiceAffinityNone}}
	setManaged(s, managed("kubectl-client-side-apply", "",
		`{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:internalTrafficPolicy":{},"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:selector":{},"f:sessionAffinity":{},"f:type":{}}}`, now))
	return s
}

// templateHash is the pod-template-hash label's value (a hash of the
// template, 10 characters as the deployment controller writes it).
func templateHash(app string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(app + appImage))
	s := fmt.Sprintf("%x", h.Sum32())
	out := make([]byte, 0, 10)
	for i := 0; len(out) < 10; i++ {
		out = append(out, nameChars[(int(s[i%len(s)])+i)%len(nameChars)])
	}
	return string(out)
}

func newReplicaSet(d *appsv1.Deployment, now time.Time) *appsv1.ReplicaSet {
	hash := templateHash(d.Name)
	labels := map[string]string{"app": d.Name, "pod-template-hash": hash}
	tmpl := d.Spec.Template.DeepCopy()
	tmpl.Labels = labels
	rs := &appsv1.ReplicaSet{ObjectMeta: meta(d.Name+"-"+hash, d.Namespace, labels, now),
		Spec: appsv1.ReplicaSetSpec{Replicas: d.Spec.Replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: *tmpl}}
	rs.Generation = 1
	rs.Annotations = map[string]string{"deployment.kubernetes.io/desired-replicas": fmt.Sprint(*d.Spec.Replicas),
		"deployment.kubernetes.io/max-replicas": fmt.Sprint(*d.Spec.Replicas + (*d.Spec.Replicas+3)/4), "deployment.kubernetes.io/revision": "1"}
	rs.OwnerReferences = controllerRef("Deployment", "apps/v1", d.Name, d.UID)
	setManaged(rs, managed("kube-controller-manager", "",
		`{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/desired-replicas":{},"f:deployment.kubernetes.io/max-replicas":{},"f:deployment.kubernetes.io/revision":{}},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"\"}":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}}},"f:spec":{"f:containers":{},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}`, now))
	return rs
}

func newPod(rs *appsv1.ReplicaSet, now time.Time) *corev1.Pod {
	seconds := int64(300)
	expiry := int64(3607)
	mode := int32(420)
	vol := randName("kube-api-access-")
	p := &corev1.Pod{ObjectMeta: meta(randName(rs.Name+"-"), rs.Namespace, rs.Spec.Template.Labels, now), Spec: *rs.Spec.Template.Spec.DeepCopy()}
	p.GenerateName = rs.Name + "-"
	p.OwnerReferences = controllerRef("ReplicaSet", "apps/v1", rs.Name, rs.UID)
	p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount = "default", "default"
	p.Spec.Tolerations = []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}}
	p.Spec.Volumes = []corev1.Volume{{Name: vol, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &expiry, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}}}}}}}
	for i := range p.Spec.Containers {
		p.Spec.Containers[i].VolumeMounts = []corev1.VolumeMount{{Name: vol, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}
	}
	prio := int32(0)
	policy := corev1.PreemptLowerPriority
	links := true
	p.Spec.Priority, p.Spec.PreemptionPolicy, p.Spec.EnableServiceLinks = &prio, &policy, &links
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable}
	setManaged(p, managed("kube-controller-manager", "",
		`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{".":{},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`, now))
	return p
}

func newNode(name string, i, maxPods int, now time.Time) *corev1.Node {
	labels := map[string]string{"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "m5.xlarge"}
	n := &corev1.Node{ObjectMeta: meta(name, "", labels, now)}
	n.Annotations = map[string]string{"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}
	n.Spec.PodCIDR = nodeCIDR(i)
	n.Spec.PodCIDRs = []string{n.Spec.PodCIDR}
	res := corev1.ResourceList{corev1.ResourceCPU: quantity.MustParse("4"), corev1.ResourceMemory: quantity.MustParse("16Gi"),
		corev1.ResourcePods: *quantity.NewQuantity(int64(maxPods), quantity.DecimalSI), corev1.ResourceEphemeralStorage: quantity.MustParse("100Gi")}
	n.Status = corev1.NodeStatus{Capacity: res, Allocatable: res.DeepCopy(),
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: nodeIP(i)}, {Type: corev1.NodeHostName, Address: name}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		NodeInfo: corev1.NodeSystemInfo{MachineID: string(newUID()), SystemUUID: string(newUID()), BootID: string(newUID()),
			KernelVersion: "6.8.0-1021-aws", OSImage: "Ubuntu 24.04.1 LTS", ContainerRuntimeVersion: "containerd://1.7.24",
			KubeletVersion: kubeletVer, OperatingSystem: "linux", Architecture: "amd64"}}
	for j, img := range []string{"registry.k8s.io/kube-proxy", "registry.k8s.io/pause", "registry.k8s.io/coredns/coredns",
		"docker.io/calico/node", "docker.io/calico/cni", "registry.k8s.io/nginx-slim", "quay.io/prometheus/node-exporter"} {
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{SizeBytes: int64(10_000_000 * (j + 3)),
			Names: []string{img + "@sha256:" + fmt.Sprintf("%064x", rand.Uint64()), img + ":v1." + fmt.Sprint(j)}})
	}
	setNodeConditions(n, now)
	setManaged(n, managed("kubelet", "", `{"f:metadata":{"f:annotations":{".":{},"f:volumes.kubernetes.io/controller-managed-attach-detach":{}},"f:labels":{".":{},"f:beta.kubernetes.io/arch":{},"f:beta.kubernetes.io/os":{},"f:kubernetes.io/arch":{},"f:kubernetes.io/hostname":{},"f:kubernetes.io/os":{}}}}`, now))
	return n
}

// setNodeConditions writes the kubelet's node conditions with heartbeat now.
func setNodeConditions(n *corev1.Node, now time.Time) {
	t := metav1.NewTime(now)
	conds := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}
	for i := range conds {
		conds[i].LastHeartbeatTime = t
		conds[i].LastTransitionTime = t
		for _, old := range n.Status.Conditions {
			if old.Type == conds[i].Type && old.Status == conds[i].Status {
				conds[i].LastTransitionTime = old.LastTransitionTime
			}
		}
	}
	n.Status.Conditions = conds
}

func nodeIP(i int) string   { return fmt.Sprintf("172.%d.%d.%d", 16+i/65536%16, i/256%256, i%256) }
func nodeCIDR(i int) string { return fmt.Sprintf("10.%d.%d.0/24", 64+i/256%192, i%256) }

// podIP is the n-th pod address in node i's CIDR.
func podIP(i, n int) string { return fmt.Sprintf("10.%d.%d.%d", 64+i/256%192, i%256, 2+n%250) }

func newLease(node string, owner types.UID, dur time.Duration, now time.Time) *coordinationv1.Lease {
	secs := int32(dur / time.Second)
	renew := metav1.NewMicroTime(now)
	holder := node
	t := true
	l := &coordinationv1.Lease{ObjectMeta: meta(node, nodeLeaseNamespace, nil, now),
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &renew}}
	l.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: owner, Controller: nil, BlockOwnerDeletion: &t}}
	setManaged(l, managed("kubelet", "", `{"f:metadata":{"f:ownerReferences":{".":{},"k:{\"uid\":\"\"}":{}}},"f:spec":{"f:holderIdentity":{},"f:leaseDurationSeconds":{},"f:renewTime":{}}}`, now))
	return l
}

// nodeLeaseNamespace is where kubelets keep their Leases.
const nodeLeaseNamespace = "kube-node-lease"

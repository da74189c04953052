package agents

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// ManifestOptions describe the Kubernetes objects that run a bench load's
// agents as an Indexed Job.
type ManifestOptions struct {
	// Name names the Job (and prefixes the other objects); Namespace is
	// theirs ("" leaves it to kubectl).
	Name, Namespace string
	// Image is etcdlab's container image.
	Image string
	// Agents is the number of pods, one agent each.
	Agents int
	// Args is the complete bench command line every agent runs (with
	// --agents and --prefix), written into the ConfigMap.
	Args []string
	// TLSSecret, if set, is a Secret with ca.crt, tls.crt and tls.key
	// (kubectl create secret generic ... or a kubernetes.io/tls Secret
	// plus ca.crt), mounted at TLSDir.
	TLSSecret string
	// CPU and Memory are each pod's requests (and the memory limit).
	CPU, Memory string
}

// Where the pods see their files.
const (
	ArgsDir  = "/etc/etcdlab/args"
	ArgsFile = "bench.args"
	TLSDir   = "/etc/etcdlab/tls"
)

// JobLabel is the label Kubernetes puts on a Job's pods, by which
// `kubectl logs -l` finds them.
const JobLabel = "batch.kubernetes.io/job-name"

// Manifests returns the objects, in the order to apply them: a
// ServiceAccount without API access (agents talk to etcd only, so no
// RBAC is needed), the ConfigMap holding the command line, and the
// Indexed Job.
func Manifests(o ManifestOptions) ([]any, error) {
	if o.Name == "" || o.Image == "" || o.Agents < 2 || len(o.Args) == 0 {
		return nil, fmt.Errorf("manifests need a name, an image, at least 2 agents and a command line")
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: map[string]string{"app.kubernetes.io/name": "etcdlab", "app.kubernetes.io/instance": o.Name}}
	}
	no := false
	sa := &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta(o.Name), AutomountServiceAccountToken: &no}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta(o.Name + "-args"),
		Data: map[string]string{ArgsFile: "# etcdlab bench, one argument per line; every agent runs this with its JOB_COMPLETION_INDEX\n" + strings.Join(o.Args, "\n") + "\n"}}
	n := int32(o.Agents)
	zero := int32(0)
	ttl := int32(3600)
	indexed := batchv1.IndexedCompletion
	yes := true
	uid := int64(65532)
	vols := []corev1.Volume{{Name: "args", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}}}
	mounts := []corev1.VolumeMount{{Name: "args", MountPath: ArgsDir, ReadOnly: true}}
	if o.TLSSecret != "" {
		vols = append(vols, corev1.Volume{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: o.TLSSecret}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "tls", MountPath: TLSDir, ReadOnly: true})
	}
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	if o.CPU != "" {
		q, err := resource.ParseQuantity(o.CPU)
		if err != nil {
			return nil, fmt.Errorf("cpu %q: %w", o.CPU, err)
		}
		res.Requests[corev1.ResourceCPU] = q
	}
	if o.Memory != "" {
		q, err := resource.ParseQuantity(o.Memory)
		if err != nil {
			return nil, fmt.Errorf("memory %q: %w", o.Memory, err)
		}
		res.Requests[corev1.ResourceMemory], res.Limits[corev1.ResourceMemory] = q, q
	}
	job := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: meta(o.Name),
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed, Completions: &n, Parallelism: &n,
			// A retried agent would join a load that moved on: a failed
			// agent stays failed, and etcdlab merge names it missing.
			BackoffLimit:            &zero,
			TTLSecondsAfterFinished: &ttl, // time to collect the logs
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app.kubernetes.io/name": "etcdlab", "app.kubernetes.io/instance": o.Name}},
				Spec: corev1.PodSpec{
					ServiceAccountName: sa.Name, AutomountServiceAccountToken: &no,
					RestartPolicy: corev1.RestartPolicyNever,
					// Agents exist to outgrow one machine: spread them.
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
						Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
							LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/instance": o.Name}}},
					}}}},
					SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &yes, RunAsUser: &uid, SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					Containers: []corev1.Container{{
						Name: "agent", Image: o.Image,
						Args:         []string{"agent", "--args-file", ArgsDir + "/" + ArgsFile},
						VolumeMounts: mounts, Resources: res,
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes,
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
					}},
					Volumes: vols,
				},
			},
		},
	}
	return []any{sa, cm, job}, nil
}

// WriteManifests writes Manifests' objects as one multi-document YAML
// file for kubectl apply -f.
func WriteManifests(w io.Writer, o ManifestOptions) error {
	objs, err := Manifests(o)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for i, obj := range objs {
		y, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	_, err = w.Write(b.Bytes())
	return err
}

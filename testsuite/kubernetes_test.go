package testsuite

import (
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
)

// Tests of deploy/kubernetes: every document is decoded strictly into the
// Kubernetes API's own types (k8s.io/api), so a misspelt or misplaced
// field fails here rather than being dropped by the API server, and the
// tests then check what makes the workers run: no shared volume, the
// probes, configuration keys the worker knows, keys from Secret files, and
// a pod bubblewrap can make its namespaces in.

// kubeWorker returns the workers' Deployment, its pod spec and its one
// container.
func kubeWorker(t *testing.T, m kubeManifests) (*appsv1.Deployment, *corev1.PodSpec, *corev1.Container) {
	t.Helper()
	return kubeDeployment(t, m, "planmode-worker")
}

// kubeDeployment returns the Deployment named name, its pod spec and its
// one container.
func kubeDeployment(t *testing.T, m kubeManifests, name string) (*appsv1.Deployment, *corev1.PodSpec, *corev1.Container) {
	t.Helper()
	d := kubeNamed(t, kubeAll[appsv1.Deployment](m), name, func(d *appsv1.Deployment) string { return d.Name })
	require.Len(t, d.Spec.Template.Spec.Containers, 1)
	return d, &d.Spec.Template.Spec, &d.Spec.Template.Spec.Containers[0]
}

// kubeNamed returns the one object of all named name.
func kubeNamed[T any](t *testing.T, all []*T, name string, nameOf func(*T) string) *T {
	t.Helper()
	var found []*T
	for _, o := range all {
		if nameOf(o) == name {
			found = append(found, o)
		}
	}
	require.Len(t, found, 1, "one %T named %s", *new(T), name)
	return found[0]
}

// kubeService returns the Service named name.
func kubeService(t *testing.T, m kubeManifests, name string) *corev1.Service {
	t.Helper()
	return kubeNamed(t, kubeAll[corev1.Service](m), name, func(s *corev1.Service) string { return s.Name })
}

func TestKubernetesKustomizationListsEveryFile(t *testing.T) {
	m := loadKube(t)
	k := m["kustomization.yaml"][0].(*kustomization)
	var files []string
	for f := range m {
		if f != "kustomization.yaml" && f != kubeSecretsExample {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	assert.ElementsMatch(t, files, k.Resources, "kustomization.yaml lists every manifest, and only those")
	assert.NotContains(t, k.Resources, kubeSecretsExample, "placeholder Secrets are never applied")

	ns := kubeOne[corev1.Namespace](t, m)
	assert.Equal(t, ns.Name, k.Namespace)
	for _, s := range m[kubeSecretsExample] {
		assert.Equal(t, k.Namespace, s.(*corev1.Secret).Namespace)
	}
	for _, kind := range []any{kubeAll[corev1.ServiceAccount](m), kubeAll[corev1.ConfigMap](m),
		kubeAll[policyv1.PodDisruptionBudget](m), kubeAll[scaledObject](m)} {
		assert.Len(t, kind, 1)
	}
	assert.Len(t, kubeAll[appsv1.Deployment](m), 2, "the workers and serve")
	assert.Len(t, kubeAll[corev1.Service](m), 2, "the workers' metrics and serve")

	// kustomize itself builds it, when kubectl is here.
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Log("kubectl is not installed: kustomize build not tried")
		return
	}
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	out, err := exec.Command(kubectl, "kustomize", filepath.Join(root, kubeDir)).CombinedOutput()
	require.NoError(t, err, "%s", out)
	img := k.Images[0]
	assert.Contains(t, string(out), "image: "+img.NewName+":"+img.NewTag)
}

func TestKubernetesWorkersShareNoVolume(t *testing.T) {
	m := loadKube(t)
	_, pod, c := kubeWorker(t, m)
	kinds := map[string]string{}
	for _, v := range pod.Volumes {
		switch {
		case v.EmptyDir != nil:
			kinds[v.Name] = "emptyDir"
		case v.Secret != nil:
			kinds[v.Name] = "secret"
		default:
			t.Errorf("volume %s is neither an emptyDir nor a Secret: a pod's files must be its own", v.Name)
		}
		assert.Nil(t, v.HostPath, v.Name)
		assert.Nil(t, v.PersistentVolumeClaim, v.Name)
	}
	cm := kubeOne[corev1.ConfigMap](t, m).Data
	for _, key := range []string{config.KeyWorkspaceRoot, config.KeyOutputsDir} {
		dir := cm[config.EnvName(key)]
		require.NotEmpty(t, dir, key)
		assert.Equal(t, "emptyDir", kinds[mountAt(c, dir)], "%s (%s) is on an emptyDir", key, dir)
	}
	assert.Equal(t, "s3", strings.SplitN(cm[config.EnvName(keyWorkspaceStore)], "://", 2)[0], "plans' files are in S3")
}

// mountAt returns the name of the volume c mounts at dir ("" for none).
func mountAt(c *corev1.Container, dir string) string {
	for _, vm := range c.VolumeMounts {
		if vm.MountPath == dir {
			return vm.Name
		}
	}
	return ""
}

func TestKubernetesProbesAndMetrics(t *testing.T) {
	m := loadKube(t)
	d, _, c := kubeWorker(t, m)
	require.Len(t, c.Ports, 1)
	assert.Equal(t, int32(9090), c.Ports[0].ContainerPort)
	assert.Equal(t, ":9090", kubeOne[corev1.ConfigMap](t, m).Data[config.EnvName(keyMetricsAddress)])
	for probe, want := range map[*corev1.Probe]string{c.ReadinessProbe: "/readyz", c.LivenessProbe: "/healthz"} {
		require.NotNil(t, probe)
		require.NotNil(t, probe.HTTPGet)
		assert.Equal(t, want, probe.HTTPGet.Path)
		assert.Equal(t, c.Ports[0].Name, probe.HTTPGet.Port.String(), "%s on the metrics port", want)
	}
	assert.NotEmpty(t, c.Resources.Requests)
	assert.NotEmpty(t, c.Resources.Limits)

	labels := d.Spec.Template.Labels
	svc := kubeService(t, m, "planmode-worker-metrics")
	assert.Subset(t, labels, svc.Spec.Selector, "the Service selects the workers")
	require.Len(t, svc.Spec.Ports, 1)
	assert.Equal(t, c.Ports[0].Name, svc.Spec.Ports[0].TargetPort.String())
	pdb := kubeOne[policyv1.PodDisruptionBudget](t, m)
	assert.Subset(t, labels, pdb.Spec.Selector.MatchLabels, "the budget covers the workers")
	assert.Equal(t, d.Spec.Selector.MatchLabels, pdb.Spec.Selector.MatchLabels)
}

// Store keys the workers are gaining (the config package's table lacks
// them until then): the blob store's URL and its key pair's files.
var pendingConfigKeys = []string{keyWorkspaceStore, keyWorkspaceStoreAccessKey, keyWorkspaceStoreSecretKey}

func TestKubernetesEnvironmentNamesConfigKeys(t *testing.T) {
	known := map[string]bool{}
	for _, k := range append(config.NewViper().AllKeys(), pendingConfigKeys...) {
		known[config.EnvName(k)] = true
	}
	require.True(t, known[config.EnvName(config.KeyAddress)], "the table lists the keys bound to variables")
	m := loadKube(t)
	_, _, c := kubeWorker(t, m)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range kubeOne[corev1.ConfigMap](t, m).Data {
			yield(k)
		}
	})
	for _, e := range c.Env {
		names = append(names, e.Name)
	}
	secretName := regexp.MustCompile(`(?i)(password|secret|apikey|api_key|token|key)$`)
	for _, name := range names {
		if !strings.HasPrefix(name, config.EnvPrefix+"_") {
			continue
		}
		assert.True(t, known[name], "%s is not a configuration key's variable", name)
		assert.NotRegexp(t, secretName, name, "%s holds a secret in the environment: use its File key", name)
	}
	cm := kubeOne[corev1.ConfigMap](t, m).Data
	assert.Equal(t, "json", cm[config.EnvName(config.KeyLogFormat)])
	assert.Equal(t, "true", cm[config.EnvName(config.KeyVersioning)])
	require.Len(t, c.EnvFrom, 1)
	assert.Equal(t, kubeOne[corev1.ConfigMap](t, m).Name, c.EnvFrom[0].ConfigMapRef.Name)
}

func TestKubernetesKeysAreSecretFiles(t *testing.T) {
	m := loadKube(t)
	_, pod, c := kubeWorker(t, m)
	secretKeys := map[string][]string{} // Secret → its keys, from the example
	for _, o := range m[kubeSecretsExample] {
		s := o.(*corev1.Secret)
		for k := range s.StringData {
			secretKeys[s.Name] = append(secretKeys[s.Name], k)
		}
	}
	secretOf := map[string]string{} // volume → Secret
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			secretOf[v.Name] = v.Secret.SecretName
			assert.Empty(t, v.Secret.Items, "%s: every key of the Secret is a file named after it", v.Name)
		}
	}
	files := map[string]string{}
	used := map[string]bool{}
	for _, e := range c.Env {
		if !strings.HasSuffix(e.Name, "FILE") {
			continue
		}
		files[e.Name] = e.Value
		vol := mountAt(c, path.Dir(e.Value))
		secret, ok := secretOf[vol]
		require.True(t, ok, "%s=%s is in no Secret's mount", e.Name, e.Value)
		assert.Contains(t, secretKeys[secret], path.Base(e.Value), "%s names a key Secret %s has", e.Name, secret)
		used[vol] = true
	}
	var want []string
	for _, k := range []string{config.KeyCodecKeyFile, config.KeyLLMAPIKeyFile, keyWorkspaceStoreAccessKey, keyWorkspaceStoreSecretKey} {
		want = append(want, config.EnvName(k))
	}
	assert.ElementsMatch(t, want, mapKeys(files))
	for vol, secret := range secretOf {
		assert.True(t, used[vol], "Secret %s is mounted but no key file names it", secret)
	}
	mounted := map[string]bool{}
	for _, d := range kubeAll[appsv1.Deployment](m) {
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Secret != nil {
				mounted[v.Secret.SecretName] = true
			}
		}
	}
	assert.ElementsMatch(t, mapKeys(secretKeys), mapKeys(mounted), "the example shows every Secret a pod mounts, and only those")
}

// composeStopGrace is what docker-compose.yml gives a stopping worker.
const composeStopGrace = 30

func TestKubernetesPodLetsBubblewrapIsolate(t *testing.T) {
	m := loadKube(t)
	_, pod, c := kubeWorker(t, m)
	require.NotNil(t, pod.HostUsers)
	assert.False(t, *pod.HostUsers, "a user namespace of the pod's own: needed for an unmasked /proc")
	psc := pod.SecurityContext
	require.NotNil(t, psc)
	require.NotNil(t, psc.SeccompProfile)
	assert.Equal(t, corev1.SeccompProfileTypeUnconfined, psc.SeccompProfile.Type, "the default profile refuses user namespaces")
	require.NotNil(t, psc.AppArmorProfile)
	assert.Equal(t, corev1.AppArmorProfileTypeUnconfined, psc.AppArmorProfile.Type, "the default profile refuses mount")
	assert.Equal(t, int64(10001), *psc.RunAsUser, "the image's planmode user")
	assert.True(t, *psc.RunAsNonRoot)

	sc := c.SecurityContext
	require.NotNil(t, sc)
	require.NotNil(t, sc.ProcMount)
	assert.Equal(t, corev1.UnmaskedProcMount, *sc.ProcMount, "bubblewrap mounts a /proc of its own")
	assert.True(t, *sc.ReadOnlyRootFilesystem)
	assert.False(t, *sc.AllowPrivilegeEscalation)
	assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)

	// A read-only root leaves the worker these places to write.
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	for _, dir := range []string{"/tmp", env["XDG_CACHE_HOME"]} {
		assert.NotEmpty(t, mountAt(c, dir), "%s is writable", dir)
	}

	require.NotNil(t, pod.TerminationGracePeriodSeconds)
	assert.GreaterOrEqual(t, *pod.TerminationGracePeriodSeconds, int64(composeStopGrace))
	assert.False(t, *pod.AutomountServiceAccountToken)
	sa := kubeOne[corev1.ServiceAccount](t, m)
	assert.Equal(t, sa.Name, pod.ServiceAccountName)
	assert.False(t, *sa.AutomountServiceAccountToken, "the workers call no Kubernetes API")
}

func TestKubernetesScalesOnTheBacklog(t *testing.T) {
	m := loadKube(t)
	d, _, _ := kubeWorker(t, m)
	so := kubeOne[scaledObject](t, m)
	assert.Equal(t, "keda.sh/v1alpha1", so.APIVersion)
	assert.Equal(t, d.Name, so.Spec.ScaleTargetRef.Name)
	assert.GreaterOrEqual(t, so.Spec.MinReplicaCount, int32(1), "queries need a worker, and make no backlog")
	assert.Greater(t, so.Spec.MaxReplicaCount, so.Spec.MinReplicaCount)
	require.Len(t, so.Spec.Triggers, 1)
	tr := so.Spec.Triggers[0]
	assert.Equal(t, "temporal", tr.Type)
	cm := kubeOne[corev1.ConfigMap](t, m).Data
	assert.Equal(t, config.EnvName(config.KeyAddress), tr.Metadata.EndpointFromEnv, "Temporal's address, set once")
	assert.Equal(t, cm[config.EnvName(config.KeyNamespace)], tr.Metadata.Namespace)
	assert.Equal(t, cm[config.EnvName(config.KeyTaskQueue)], tr.Metadata.TaskQueue, "the workers' queue")
	assert.Equal(t, "workflow,activity", tr.Metadata.QueueTypes)
}

package testsuite

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/serve"
)

// TestKubernetesServe checks planmode serve's Deployment and Service: a
// stateless pod (Secrets only, no volume of its own), the workers'
// Temporal settings, its tokens and the codec key from Secret files,
// probes on /healthz, and a Service in front of any number of replicas.
func TestKubernetesServe(t *testing.T) {
	m := loadKube(t)
	d, pod, c := kubeDeployment(t, m, "planmode-serve")
	assert.Equal(t, []string{"planmode"}, c.Command)
	assert.Equal(t, []string{"serve"}, c.Args)
	require.NotNil(t, d.Spec.Replicas)
	assert.GreaterOrEqual(t, *d.Spec.Replicas, int32(2), "replicas hold no state: any count serves")

	secretOf := map[string]string{}
	for _, v := range pod.Volumes {
		require.NotNil(t, v.Secret, "volume %s: serve keeps nothing, so it mounts Secrets only", v.Name)
		secretOf[v.Name] = v.Secret.SecretName
	}
	require.Len(t, c.EnvFrom, 1)
	assert.Equal(t, kubeOne[corev1.ConfigMap](t, m).Name, c.EnvFrom[0].ConfigMapRef.Name, "Temporal's address, set once")
	known := map[string]bool{}
	for _, k := range config.NewViper().AllKeys() {
		known[config.EnvName(k)] = true
	}
	env := map[string]string{}
	for _, e := range c.Env {
		assert.True(t, known[e.Name], "%s is not a configuration key's variable", e.Name)
		env[e.Name] = e.Value
	}
	assert.Equal(t, ":8088", env[config.EnvName(config.KeyServeListen)], "beyond loopback in a pod, said explicitly")
	tokens := env[config.EnvName(config.KeyServeTokensFile)]
	assert.Equal(t, "planmode-serve", secretOf[mountAt(c, path.Dir(tokens))], "the tokens are the Secret planmode-serve")
	assert.Equal(t, "planmode-codec", secretOf[mountAt(c, path.Dir(env[config.EnvName(keyCodecKeyFile)]))])

	require.Len(t, c.Ports, 1)
	assert.Equal(t, int32(8088), c.Ports[0].ContainerPort)
	for _, probe := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
		require.NotNil(t, probe)
		require.NotNil(t, probe.HTTPGet)
		assert.Equal(t, "/healthz", probe.HTTPGet.Path, "the one path that takes no token")
		assert.Equal(t, c.Ports[0].Name, probe.HTTPGet.Port.String())
	}
	svc := kubeService(t, m, "planmode-serve")
	assert.Subset(t, d.Spec.Template.Labels, svc.Spec.Selector)
	require.Len(t, svc.Spec.Ports, 1)
	assert.Equal(t, c.Ports[0].Name, svc.Spec.Ports[0].TargetPort.String())

	assert.False(t, *pod.AutomountServiceAccountToken)
	assert.True(t, *pod.SecurityContext.RunAsNonRoot)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	assert.Nil(t, c.SecurityContext.ProcMount, "serve runs no sandbox: the runtime's defaults stay")

	// The example's placeholder token is refused: serve does not start
	// on a token anyone could read here.
	var example string
	for _, o := range m[kubeSecretsExample] {
		if s := o.(*corev1.Secret); s.Name == "planmode-serve" {
			example = s.StringData[path.Base(tokens)]
		}
	}
	require.NotEmpty(t, example)
	_, err := serve.ParseTokens([]byte(example))
	assert.ErrorContains(t, err, "at least 16")
	assert.True(t, strings.Contains(example, "REPLACE-ME"))
}

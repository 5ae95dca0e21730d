{{/*
Names. They are fixed, not derived from the release name: they are the names artifacts/deploy uses (so either
install can replace the other), and the group aim.eai.amd.com can be served by one server per cluster anyway.
*/}}
{{- define "aim-apiserver.name" -}}aim-apiserver{{- end }}
{{- define "aim-apiserver.etcdName" -}}aim-etcd{{- end }}

{{- define "aim-apiserver.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels of every object: app.kubernetes.io/name (aim-etcd on the bundled etcd's objects, its maintenance CronJobs
and their volume included, aim-apiserver on everything else, as on their pods), app.kubernetes.io/part-of as artifacts/deploy
sets it, and Helm's own. artifacts/deploy has app.kubernetes.io/name only on pods and in selectors.
*/}}
{{- define "aim-apiserver.labels" -}}
app.kubernetes.io/name: {{ include "aim-apiserver.name" . }}
{{ include "aim-apiserver.commonLabels" . }}
{{- end }}
{{- define "aim-apiserver.etcdLabels" -}}
app.kubernetes.io/name: {{ include "aim-apiserver.etcdName" . }}
{{ include "aim-apiserver.commonLabels" . }}
{{- end }}
{{- define "aim-apiserver.commonLabels" -}}
app.kubernetes.io/part-of: aim-apiserver
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ include "aim-apiserver.chart" . }}
{{- end }}

{{/*
Selectors. Deployment and StatefulSet selectors are immutable: these are exactly artifacts/deploy's.
*/}}
{{- define "aim-apiserver.selectorLabels" -}}
app.kubernetes.io/name: {{ include "aim-apiserver.name" . }}
{{- end }}
{{- define "aim-apiserver.etcdSelectorLabels" -}}
app.kubernetes.io/name: {{ include "aim-apiserver.etcdName" . }}
{{- end }}
{{- /* The snapshot and defrag CronJobs' pods, which the etcd NetworkPolicy admits as clients. */}}
{{- define "aim-apiserver.etcdMaintenanceSelectorLabels" -}}
app.kubernetes.io/name: aim-etcd-maintenance
{{- end }}

{{/*
Image references. registry (the image's own, else global.imageRegistry) replaces the registry host of the
repository, as Docker parses it (a first path component with a "." or ":", or "localhost"), or is prefixed to a
repository without one. A digest pins the image: repository@digest, the tag ignored.
*/}}
{{- define "aim-apiserver.imageRef" -}}
{{- $repository := .image.repository -}}
{{- with (.image.registry | default (.global | default dict).imageRegistry) -}}
{{- $parts := splitList "/" $repository -}}
{{- $first := first $parts -}}
{{- if and (gt (len $parts) 1) (or (contains "." $first) (contains ":" $first) (eq $first "localhost")) -}}
{{- $parts = rest $parts -}}
{{- end -}}
{{- $repository = printf "%s/%s" . (join "/" $parts) -}}
{{- end -}}
{{- if .image.digest -}}
{{- printf "%s@%s" $repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (.image.tag | default .defaultTag) -}}
{{- end -}}
{{- end }}

{{- define "aim-apiserver.image" -}}
{{- include "aim-apiserver.imageRef" (dict "image" .Values.image "global" .Values.global "defaultTag" .Chart.AppVersion) }}
{{- end }}
{{- define "aim-apiserver.etcdImage" -}}
{{- include "aim-apiserver.imageRef" (dict "image" .Values.etcd.image "global" .Values.global "defaultTag" "") }}
{{- end }}

{{/*
Topology spread constraints (the list of a value) as YAML: a constraint without labelSelector gets the pods' own
selector labels (.selector), without which it would count no pods.
*/}}
{{- define "aim-apiserver.topologySpreadConstraints" -}}
{{- $out := list -}}
{{- range .constraints -}}
{{- $c := deepCopy . -}}
{{- if not (hasKey $c "labelSelector") -}}
{{- $_ := set $c "labelSelector" (dict "matchLabels" ($.selector | fromYaml)) -}}
{{- end -}}
{{- $out = append $out $c -}}
{{- end -}}
{{- toYaml $out -}}
{{- end }}

{{/*
DNS names of a Service in the release namespace: name, name.ns, name.ns.svc, name.ns.svc.<domain>.
*/}}
{{- define "aim-apiserver.serviceDNSNames" -}}
{{- $ns := .ctx.Release.Namespace -}}
{{- list .name (printf "%s.%s" .name $ns) (printf "%s.%s.svc" .name $ns) (printf "%s.%s.svc.%s" .name $ns .ctx.Values.clusterDomain) | toJson }}
{{- end }}

{{/* servingCert.mode=self: the names kube-apiserver verifies, <service>.<ns>.svc[.<domain>]. */}}
{{- define "aim-apiserver.servingCertHosts" -}}
{{- $names := include "aim-apiserver.serviceDNSNames" (dict "ctx" . "name" (include "aim-apiserver.name" .)) | fromJsonArray -}}
{{- slice $names 2 | join "," -}}
{{- end }}

{{/*
Names of etcd's members for certificates: every member's <pod>.aim-etcd.<ns>.svc[.<domain>].
*/}}
{{- define "aim-apiserver.etcdMemberDNSNames" -}}
{{- $ns := .Release.Namespace -}}
{{- list (printf "*.aim-etcd.%s.svc" $ns) (printf "*.aim-etcd.%s.svc.%s" $ns .Values.clusterDomain) | toJson }}
{{- end }}

{{/* etcd.certs.mode=self: whether aim-apiserver's init container creates etcd's certificates. */}}
{{- define "aim-apiserver.selfEtcdCerts" -}}
{{- if and (include "aim-apiserver.bundledEtcd" .) (eq .Values.etcd.certs.mode "self") }}true{{ end }}
{{- end }}

{{/*
Names of etcd's server certificate: the client Service, every member, and localhost/127.0.0.1 because etcd's gRPC
gateway dials etcd itself with it. As a JSON array.
*/}}
{{- define "aim-apiserver.etcdServerHosts" -}}
{{- $clientService := include "aim-apiserver.serviceDNSNames" (dict "ctx" . "name" "aim-etcd-client") | fromJsonArray -}}
{{- concat $clientService (include "aim-apiserver.etcdMemberDNSNames" . | fromJsonArray) (list "localhost" "127.0.0.1") | toJson -}}
{{- end }}

{{/* ---- Secret names ------------------------------------------------------------------------------------ */}}

{{- define "aim-apiserver.servingSecretName" -}}
{{- if eq .Values.servingCert.mode "existing" }}
{{- required "servingCert.existingSecret is required with servingCert.mode=existing" .Values.servingCert.existingSecret }}
{{- else }}aim-apiserver-serving-cert
{{- end }}
{{- end }}

{{- define "aim-apiserver.etcdClientSecretName" -}}
{{- if eq .Values.etcd.mode "external" }}
{{- required "etcd.external.clientSecret is required with etcd.mode=external" .Values.etcd.external.clientSecret }}
{{- else if eq .Values.etcd.certs.mode "existing" }}
{{- required "etcd.certs.existingSecrets.client is required with etcd.certs.mode=existing" .Values.etcd.certs.existingSecrets.client }}
{{- else }}aim-apiserver-etcd-client
{{- end }}
{{- end }}

{{- define "aim-apiserver.etcdServerSecretName" -}}
{{- if eq .Values.etcd.certs.mode "existing" }}
{{- required "etcd.certs.existingSecrets.server is required with etcd.certs.mode=existing" .Values.etcd.certs.existingSecrets.server }}
{{- else }}aim-etcd-server-tls
{{- end }}
{{- end }}

{{- define "aim-apiserver.etcdPeerSecretName" -}}
{{- if eq .Values.etcd.certs.mode "existing" }}
{{- required "etcd.certs.existingSecrets.peer is required with etcd.certs.mode=existing" .Values.etcd.certs.existingSecrets.peer }}
{{- else }}aim-etcd-peer-tls
{{- end }}
{{- end }}

{{- define "aim-apiserver.bundledEtcd" -}}
{{- if eq .Values.etcd.mode "bundled" }}true{{ end }}
{{- end }}

{{/*
---- Generated certificates ----------------------------------------------------------------------------------
genCA and genSignedCert return new keys on every call, and several templates need the same certificate (the
Secret, the APIService caBundle, the checksum that rolls the pods). So each helper creates its set once per
render and keeps it in a private key of .Values, which all templates of the release share; it returns Secret
data (base64) as JSON.

A set is created only when the cluster does not hold it yet: lookup reads the Secrets of an earlier install, so
upgrades keep the certificates (and pods do not roll). `helm template` cannot look up and always creates a set.
*/}}

{{/* Secret data (base64 values) of a live Secret if it has every key, else an empty dict. */}}
{{- define "aim-apiserver.liveTLSData" -}}
{{- $s := lookup "v1" "Secret" .ctx.Release.Namespace .name -}}
{{- $data := dict -}}
{{- if $s }}{{ $data = $s.data | default dict }}{{ end -}}
{{- if and (index $data "tls.crt") (index $data "tls.key") (index $data "ca.crt") -}}
{{- pick $data "tls.crt" "tls.key" "ca.crt" | toJson -}}
{{- else -}}
{}
{{- end -}}
{{- end }}

{{/* servingCert.mode=generate: data of the Secret aim-apiserver-serving-cert. */}}
{{- define "aim-apiserver.servingCertData" -}}
{{- if not (hasKey .Values "aimGeneratedServingCert") -}}
{{- $data := include "aim-apiserver.liveTLSData" (dict "ctx" . "name" "aim-apiserver-serving-cert") | fromJson -}}
{{- if not $data -}}
{{- $days := int .Values.servingCert.validityDays -}}
{{- $ca := genCA "aim-apiserver-ca" $days -}}
{{- $svc := include "aim-apiserver.name" . -}}
{{- $dns := include "aim-apiserver.serviceDNSNames" (dict "ctx" . "name" $svc) | fromJsonArray -}}
{{- $cert := genSignedCert (printf "%s.%s.svc" $svc .Release.Namespace) nil $dns $days $ca -}}
{{- $data = dict "tls.crt" ($cert.Cert | b64enc) "tls.key" ($cert.Key | b64enc) "ca.crt" ($ca.Cert | b64enc) -}}
{{- end -}}
{{- $_ := set .Values "aimGeneratedServingCert" $data -}}
{{- end -}}
{{- .Values.aimGeneratedServingCert | toJson -}}
{{- end }}

{{/*
etcd.certs.mode=generate: data of the Secrets aim-etcd-server-tls, aim-etcd-peer-tls and aim-apiserver-etcd-client,
as {server: {...}, peer: {...}, client: {...}}. All three are signed by one CA, so they are reused only together.
*/}}
{{- define "aim-apiserver.etcdCertData" -}}
{{- if not (hasKey .Values "aimGeneratedEtcdCerts") -}}
{{- $server := include "aim-apiserver.liveTLSData" (dict "ctx" . "name" "aim-etcd-server-tls") | fromJson -}}
{{- $peer := include "aim-apiserver.liveTLSData" (dict "ctx" . "name" "aim-etcd-peer-tls") | fromJson -}}
{{- $client := include "aim-apiserver.liveTLSData" (dict "ctx" . "name" "aim-apiserver-etcd-client") | fromJson -}}
{{- $sets := dict "server" $server "peer" $peer "client" $client -}}
{{- $liveCA := index $server "ca.crt" -}}
{{- $sameCA := and $server $peer $client (eq $liveCA (index $peer "ca.crt")) (eq $liveCA (index $client "ca.crt")) -}}
{{- if not $sameCA -}}
{{- $days := int .Values.etcd.certs.validityDays -}}
{{- $ca := genCA "aim-etcd-ca" $days -}}
{{- $caCrt := $ca.Cert | b64enc -}}
{{- $members := include "aim-apiserver.etcdMemberDNSNames" . | fromJsonArray -}}
{{- $serverHosts := include "aim-apiserver.etcdServerHosts" . | fromJsonArray -}}
{{- /* genSignedCert's certificates serve and authenticate clients alike. */ -}}
{{- $s := genSignedCert "aim-etcd" (list "127.0.0.1") (without $serverHosts "127.0.0.1") $days $ca -}}
{{- $p := genSignedCert "aim-etcd-peer" nil $members $days $ca -}}
{{- $c := genSignedCert "aim-apiserver" nil nil $days $ca -}}
{{- $sets = dict
  "server" (dict "tls.crt" ($s.Cert | b64enc) "tls.key" ($s.Key | b64enc) "ca.crt" $caCrt)
  "peer" (dict "tls.crt" ($p.Cert | b64enc) "tls.key" ($p.Key | b64enc) "ca.crt" $caCrt)
  "client" (dict "tls.crt" ($c.Cert | b64enc) "tls.key" ($c.Key | b64enc) "ca.crt" $caCrt) -}}
{{- end -}}
{{- $_ := set .Values "aimGeneratedEtcdCerts" $sets -}}
{{- end -}}
{{- .Values.aimGeneratedEtcdCerts | toJson -}}
{{- end }}

{{/*
The APIService's caBundle (base64 PEM), for servingCert.mode generate or existing.
*/}}
{{- define "aim-apiserver.caBundle" -}}
{{- if eq .Values.servingCert.mode "generate" -}}
{{- index (include "aim-apiserver.servingCertData" . | fromJson) "ca.crt" -}}
{{- else if .Values.servingCert.caBundle -}}
{{- .Values.servingCert.caBundle | b64enc -}}
{{- else -}}
{{- $name := include "aim-apiserver.servingSecretName" . -}}
{{- $s := lookup "v1" "Secret" .Release.Namespace $name -}}
{{- $ca := "" -}}
{{- if $s }}{{ $ca = index ($s.data | default dict) "ca.crt" | default "" }}{{ end -}}
{{- if not $ca -}}
{{- $msg := "servingCert.mode=existing: the APIService needs the CA of the serving certificate; set servingCert.caBundle" -}}
{{- $msg = printf "%s (--set-file servingCert.caBundle=ca.crt) or give Secret %s/%s a ca.crt" $msg .Release.Namespace $name -}}
{{- fail (printf "%s (helm template cannot read the cluster)" $msg) -}}
{{- end -}}
{{- $ca -}}
{{- end -}}
{{- end }}

{{/*
Checks of combinations the schema does not express.
*/}}
{{- define "aim-apiserver.validate" -}}
{{- if and (eq .Values.etcd.mode "external") (not .Values.etcd.external.endpoints) -}}
{{- fail "etcd.external.endpoints is required with etcd.mode=external" -}}
{{- end -}}
{{- range .Values.etcd.external.endpoints -}}
{{- if not (hasPrefix "https://" .) -}}
{{- fail (printf "etcd.external.endpoints: %q is not https://: aim-apiserver talks to etcd over TLS only" .) -}}
{{- end -}}
{{- end -}}
{{- end }}

{{/* NO_PROXY of aim-apiserver: loopback, in-cluster names, kube-apiserver's Service address, then proxy.noProxy. */}}
{{- define "aim-apiserver.noProxy" -}}
{{- $entries := list "localhost" "127.0.0.1" ".svc" (printf ".%s" .Values.clusterDomain) "$(KUBERNETES_SERVICE_HOST)" -}}
{{- with .Values.proxy.noProxy }}{{ $entries = append $entries . }}{{ end -}}
{{- join "," $entries -}}
{{- end }}

{{/*
Outbound HTTPS of aim-apiserver's image (registries, the snapshot bucket): the private CAs of extraCACertificates
trusted next to the image's public ones, and the proxy. Env entries, volume mount and volume, for every pod that
makes such calls.
*/}}
{{- define "aim-apiserver.outboundEnv" -}}
{{- if or .Values.extraCACertificates.configMap .Values.extraCACertificates.secret }}
# Go reads the image's bundle (/etc/ssl/certs/ca-certificates.crt) and every file of these directories: the
# private CAs are trusted next to the public ones.
- name: SSL_CERT_DIR
  value: /etc/aim-apiserver/ca-certificates
{{- end }}
{{- with .Values.proxy }}
{{- if or .httpsProxy .httpProxy }}
{{- with .httpsProxy }}
- name: HTTPS_PROXY
  value: {{ . | quote }}
{{- end }}
{{- with .httpProxy }}
- name: HTTP_PROXY
  value: {{ . | quote }}
{{- end }}
# kube-apiserver (the Service address Kubernetes puts in KUBERNETES_SERVICE_HOST), etcd and every in-cluster name
# are reached directly.
- name: NO_PROXY
  value: {{ include "aim-apiserver.noProxy" $ | quote }}
{{- end }}
{{- end }}
{{- end }}

{{- define "aim-apiserver.extraCAVolumeMount" -}}
{{- if or .Values.extraCACertificates.configMap .Values.extraCACertificates.secret }}
- name: extra-ca-certificates
  mountPath: /etc/aim-apiserver/ca-certificates
  readOnly: true
{{- end }}
{{- end }}

{{- define "aim-apiserver.extraCAVolume" -}}
{{- with .Values.extraCACertificates }}
{{- if or .configMap .secret }}
- name: extra-ca-certificates
  projected:
    defaultMode: 0444
    sources:
      {{- with .configMap }}
      - configMap:
          name: {{ . }}
      {{- end }}
      {{- with .secret }}
      - secret:
          name: {{ . }}
      {{- end }}
{{- end }}
{{- end }}
{{- end }}

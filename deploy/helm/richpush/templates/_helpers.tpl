{{- define "richpush.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "richpush.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The labels that select one component's pods: api, worker-bulk, worker-interactive, migrate. */}}
{{- define "richpush.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- with .build }}
richpush/build: {{ include "richpush.buildSlug" . }}
{{- end }}
{{- end -}}

{{/* A build id (an image tag) as a label value and a name suffix. */}}
{{- define "richpush.buildSlug" -}}
{{- regexReplaceAll "[^a-z0-9-]" (lower .) "-" | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* The build the release deploys: the image's tag. */}}
{{- define "richpush.currentBuild" -}}
{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "richpush.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "richpush.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ .Values.serviceAccount.name | default (include "richpush.fullname" .) }}
{{- else -}}
{{ .Values.serviceAccount.name | default "default" }}
{{- end -}}
{{- end -}}

{{- define "richpush.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
{{- end -}}

{{/* DATABASE_URL, the one setting every role needs, from the existing Secret. */}}
{{- define "richpush.databaseEnv" -}}
{{ include "richpush.secretEnv" (dict "name" "DATABASE_URL" "secret" .Values.secrets.existingSecret "key" .Values.secrets.keys.databaseUrl) }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- end -}}

{{/* What the api and the workers share (src/config.ts: sharedSettings, storage, links, metrics, Temporal). */}}
{{- define "richpush.serviceEnv" -}}
{{ include "richpush.databaseEnv" . }}
{{ include "richpush.secretEnv" (dict "name" "SECRETS_KEY" "secret" .Values.secrets.existingSecret "key" .Values.secrets.keys.secretsKey) }}
- name: PUBLIC_URL
  value: {{ .Values.publicUrl | quote }}
{{ include "richpush.temporalEnv" . }}
- name: TEMPORAL_TASK_QUEUE
  value: {{ .Values.temporal.taskQueue | quote }}
- name: TEMPORAL_INTERACTIVE_TASK_QUEUE
  value: {{ .Values.temporal.interactiveTaskQueue | quote }}
- name: STORAGE_DRIVER
  value: s3
- name: S3_BUCKET
  value: {{ .Values.storage.s3.bucket | quote }}
- name: S3_REGION
  value: {{ .Values.storage.s3.region | quote }}
{{- with .Values.storage.s3.endpoint }}
- name: S3_ENDPOINT
  value: {{ . | quote }}
{{- end }}
- name: S3_FORCE_PATH_STYLE
  value: {{ .Values.storage.s3.forcePathStyle | quote }}
{{- with .Values.storage.s3.credentials.existingSecret }}
{{ include "richpush.secretEnv" (dict "name" "AWS_ACCESS_KEY_ID" "secret" . "key" $.Values.storage.s3.credentials.accessKeyIdKey) }}
{{ include "richpush.secretEnv" (dict "name" "AWS_SECRET_ACCESS_KEY" "secret" . "key" $.Values.storage.s3.credentials.secretAccessKeyKey) }}
{{- end }}
- name: DATA_DIR
  value: /tmp/richpush
- name: METRICS_PORT
  value: {{ .Values.metrics.port | quote }}
- name: METRICS_HOST
  value: 0.0.0.0
{{- end -}}

{{- define "richpush.extraEnv" -}}
{{- range $name, $value := . }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}

{{/* Volumes every pod has: scratch space, and the Temporal client certificate when mTLS is on. */}}
{{/* Temporal's address, namespace and credentials, for a process that only talks to Temporal. */}}
{{- define "richpush.temporalEnv" -}}
- name: TEMPORAL_ADDRESS
  value: {{ .Values.temporal.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ .Values.temporal.namespace | quote }}
{{- if .Values.temporal.tls }}
- name: TEMPORAL_TLS
  value: "true"
{{- end }}
{{- with .Values.temporal.apiKey.existingSecret }}
{{ include "richpush.secretEnv" (dict "name" "TEMPORAL_API_KEY" "secret" . "key" $.Values.temporal.apiKey.key) }}
{{- end }}
{{- if .Values.temporal.mtls.existingSecret }}
- name: TEMPORAL_TLS_CERT_FILE
  value: /etc/richpush/temporal-tls/{{ .Values.temporal.mtls.certKey }}
- name: TEMPORAL_TLS_KEY_FILE
  value: /etc/richpush/temporal-tls/{{ .Values.temporal.mtls.keyKey }}
{{- end }}
{{- end -}}

{{- define "richpush.volumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpVolume.sizeLimit }}
{{- with .Values.temporal.mtls.existingSecret }}
- name: temporal-tls
  secret:
    secretName: {{ . }}
    defaultMode: 0440
{{- end }}
{{- end -}}

{{- define "richpush.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.temporal.mtls.existingSecret }}
- name: temporal-tls
  mountPath: /etc/richpush/temporal-tls
  readOnly: true
{{- end }}
{{- end -}}

{{- define "richpush.podSpecCommon" -}}
serviceAccountName: {{ include "richpush.serviceAccountName" . }}
{{ include "richpush.podSecurity" . }}
{{- end -}}

{{/* No pod talks to the Kubernetes API: no token is mounted. */}}
{{- define "richpush.podSecurity" -}}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

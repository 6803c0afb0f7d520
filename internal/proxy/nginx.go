package proxy

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hopbench/hopbench/internal/transport"
)

// nginx is Debian's nginx: one process (daemon off, master_process off:
// no workers to outlive a killed parent), the stream module
// (libnginx-mod-stream) at L4, http at L7 with proxy_pass for HTTP/1.1
// and grpc_pass for HTTP/2 (nginx speaks HTTP/2 to an upstream only so).
type nginx struct{}

func init() { register(nginx{}) }

func (nginx) Name() string    { return "nginx" }
func (nginx) Binary() string  { return "/usr/sbin/nginx" }
func (nginx) Package() string { return "nginx, libnginx-mod-stream" }

// streamModule is where Debian's libnginx-mod-stream puts the module.
const streamModule = "/usr/lib/nginx/modules/ngx_stream_module.so"

// Args give nginx its prefix and an error log under l.Dir from the
// start (before its configuration is read it would open Debian's).
func (nginx) Args(path string, l Leg) []string {
	return []string{"-p", l.Dir, "-e", filepath.Join(l.Dir, "error.log"), "-c", path}
}

func (nginx) Config(l Leg) string {
	var b strings.Builder
	fmt.Fprintf(&b, "daemon off;\nmaster_process off;\nworker_processes 1;\npid %s;\nerror_log %s warn;\n",
		filepath.Join(l.Dir, "nginx.pid"), filepath.Join(l.Dir, "error.log"))
	if l.Mode == L4 {
		fmt.Fprintf(&b, "load_module %s;\n", streamModule)
	}
	b.WriteString("events { worker_connections 20000; }\n")
	if l.Mode == L4 {
		fmt.Fprintf(&b, "stream {\n\tupstream next { server %s; }\n\tserver {\n\t\tlisten %s%s;\n%s\t\tproxy_pass next;\n%s\t}\n}\n",
			l.Upstream, l.Listen, sslListen(l.Accept, ""), nginxAccept(l.Accept), nginxOriginate(l.Originate, "proxy", true))
		return b.String()
	}
	tmp := func(name string) string { return filepath.Join(l.Dir, "tmp", name) }
	fmt.Fprintf(&b, "http {\n\taccess_log off;\n\tclient_body_temp_path %s;\n\tproxy_temp_path %s;\n\tfastcgi_temp_path %s;\n\tuwsgi_temp_path %s;\n\tscgi_temp_path %s;\n",
		tmp("body"), tmp("proxy"), tmp("fastcgi"), tmp("uwsgi"), tmp("scgi"))
	b.WriteString("\tkeepalive_requests 1000000;\n\tkeepalive_timeout 10m;\n\tclient_max_body_size 0;\n")
	fmt.Fprintf(&b, "\tupstream next {\n\t\tserver %s;\n\t\tkeepalive 256;\n\t\tkeepalive_requests 1000000;\n\t\tkeepalive_timeout 10m;\n\t}\n", l.Upstream)
	h2 := ""
	if l.HTTP == transport.HTTP2 {
		h2 = " http2"
	}
	fmt.Fprintf(&b, "\tserver {\n\t\tlisten %s%s;\n%s\t\tlocation / {\n%s\t\t}\n\t}\n}\n", l.Listen, sslListen(l.Accept, h2), nginxAccept(l.Accept), nginxPass(l))
	return b.String()
}

// nginxPass relays a location to the upstream: grpc_pass for HTTP/2,
// proxy_pass with kept-alive HTTP/1.1 connections otherwise, unbuffered
// either way (a sidecar relays; it does not hold replies).
func nginxPass(l Leg) string {
	scheme, module := "http", "proxy"
	if l.HTTP == transport.HTTP2 {
		scheme, module = "grpc", "grpc"
	}
	if l.Originate != nil {
		scheme += "s"
	}
	s := fmt.Sprintf("\t\t\t%s_pass %s://next;\n", module, scheme)
	if module == "proxy" {
		s += "\t\t\tproxy_http_version 1.1;\n\t\t\tproxy_set_header Connection \"\";\n\t\t\tproxy_buffering off;\n\t\t\tproxy_request_buffering off;\n"
	}
	s += "\t\t\t" + module + "_read_timeout 10m;\n\t\t\t" + module + "_send_timeout 10m;\n"
	return s + "\t" + strings.ReplaceAll(nginxOriginate(l.Originate, module, false), "\n\t", "\n\t\t")
}

func sslListen(accept *TLSFiles, h2 string) string {
	if accept != nil {
		return " ssl" + h2
	}
	return h2
}

// nginxAccept ends TLS on the listener, requiring a client certificate.
func nginxAccept(f *TLSFiles) string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("\t\tssl_certificate %s;\n\t\tssl_certificate_key %s;\n\t\tssl_client_certificate %s;\n\t\tssl_verify_client on;\n", f.Cert, f.Key, f.CA)
}

// nginxOriginate opens TLS to the upstream with the client certificate,
// checking the upstream's against the CA (its certificate names
// localhost); module is the directives' prefix: proxy or grpc. In a
// stream, proxy_ssl turns it on; in http, the upstream's https:// or
// grpcs:// scheme does.
func nginxOriginate(f *TLSFiles, module string, stream bool) string {
	if f == nil {
		return ""
	}
	s := ""
	if stream {
		s = "\t\tproxy_ssl on;\n"
	}
	return s + fmt.Sprintf("\t\t%[1]s_ssl_certificate %[2]s;\n\t\t%[1]s_ssl_certificate_key %[3]s;\n\t\t%[1]s_ssl_trusted_certificate %[4]s;\n\t\t%[1]s_ssl_verify on;\n\t\t%[1]s_ssl_name localhost;\n\t\t%[1]s_ssl_session_reuse on;\n",
		module, f.Cert, f.Key, f.CA)
}

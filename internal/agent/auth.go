package agent

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/certs"
)

// Auth is how an agent and its coordinators know each other; an agent
// runs real processes, so it takes no coordinator it cannot authenticate.
// With TLS, both ends hold the run's certificate bundle: the agent
// presents its server certificate and requires a client certificate
// signed by the bundle's CA (mutual TLS). With Token, the coordinator
// sends it with every call, and the agent checks it too; over TLS it is
// encrypted, without it it crosses the network in clear (for a lab's own
// namespaces only).
type Auth struct {
	TLS   *certs.Bundle
	Token string
}

// MinTokenBytes is the shortest token taken.
const MinTokenBytes = 16

// LoadAuth reads the bundle in tlsDir and the token in tokenFile (either
// may be empty, not both).
func LoadAuth(tlsDir, tokenFile string) (Auth, error) {
	var a Auth
	var err error
	if tlsDir != "" {
		if a.TLS, err = certs.Load(tlsDir); err != nil {
			return a, fmt.Errorf("--tls-dir %s: %w (make a bundle with hopbench hosts certs --out %s)", tlsDir, err, tlsDir)
		}
	}
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return a, fmt.Errorf("--token-file: %w", err)
		}
		if a.Token = strings.TrimSpace(string(b)); len(a.Token) < MinTokenBytes {
			return a, fmt.Errorf("--token-file %s: the token has %d bytes; give at least %d (e.g. head -c 32 /dev/urandom | base64 > %s)", tokenFile, len(a.Token), MinTokenBytes, tokenFile)
		}
	}
	return a, a.check()
}

func (a Auth) check() error {
	if a.TLS == nil && a.Token == "" {
		return errors.New("an agent and its coordinators must authenticate each other: give --tls-dir (the run's certificates, for mutual TLS) or --token-file")
	}
	return nil
}

// ServerOptions make a gRPC server take only coordinators a authenticates.
func (a Auth) ServerOptions() ([]grpc.ServerOption, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	var opts []grpc.ServerOption
	if a.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(a.TLS.Server(true))))
	}
	if a.Token != "" {
		opts = append(opts, grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := a.admit(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}), grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := a.admit(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}))
	}
	return opts, nil
}

// admit checks a call's token.
func (a Auth) admit(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		if got, ok := strings.CutPrefix(v, "Bearer "); ok && subtle.ConstantTimeCompare([]byte(got), []byte(a.Token)) == 1 {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "this agent takes only coordinators with its token (hopbench run --token-file)")
}

// DialOptions authenticate a coordinator to agents as a says.
func (a Auth) DialOptions() ([]grpc.DialOption, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	var opts []grpc.DialOption
	if a.TLS != nil {
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(a.TLS.Client(true))))
	} else {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if a.Token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(bearer{token: a.Token, secure: a.TLS != nil}))
	}
	return opts, nil
}

type bearer struct {
	token  string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.token}, nil
}

func (b bearer) RequireTransportSecurity() bool { return b.secure }

package dev.hopbench.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs once Quarkus serves: starts the admin endpoint, writes the ready
 * line, and waits for SIGINT or SIGTERM.
 */
public class App implements QuarkusApplication {
    @Override
    public int run(String... args) throws Exception {
        Flags f = Main.flags;
        // Quarkus rewrites a port of 0 to the one it bound.
        int port = ConfigProvider.getConfig().getValue("quarkus.http.port", Integer.class);
        String addr = f.listenHost + ":" + port;
        Seeds seeds = f.seeds == null ? Seeds.NONE : Seeds.read(f.seeds);
        Downstream down = f.downstream.isEmpty() ? null : Downstream.of(f.stack, f.downstream.get(0), f.maxBytes);
        Node.INSTANCE.configure(f, addr, seeds, down);
        Admin admin = Admin.start(f.adminHost, f.adminPort);
        if (f.announce) {
            Map<String, Object> ready = new LinkedHashMap<>();
            ready.put("hopbench_node", 1);
            ready.put("stack", f.stack);
            ready.put("addr", addr);
            ready.put("admin", admin.address());
            Main.announce.println(new ObjectMapper().writeValueAsString(ready));
            Main.announce.flush();
        }
        System.err.println("hopbench jvm node: " + f.stack + " serving on " + addr + ", admin on http://" + admin.address());
        Quarkus.waitForExit();
        admin.stop();
        if (down != null) {
            down.close();
        }
        return 0;
    }
}

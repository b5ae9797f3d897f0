package dev.vigil.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** The topic checks both ends make before they start: does the cluster answer, does the topic exist. */
final class KafkaTopics {
    private KafkaTopics() {
    }

    /** Client settings that keep every wait of a client bounded (docs/FLEET.md, "Failures"). */
    static Properties clientBasics(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        p.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, "3000");
        return p;
    }

    /**
     * The topic's partition count. An unknown topic is created when {@code createPartitions > 0},
     * otherwise it is a {@link FleetInputException}; no answer within {@code waitMs} is a
     * {@link BrokerUnreachableException}.
     */
    static int describe(String bootstrap, String topic, int createPartitions, short replication, long waitMs) {
        Admin admin = Admin.create(clientBasics(bootstrap));
        try {
            try {
                return partitions(admin, topic, waitMs);
            } catch (UnknownTopicOrPartitionException unknown) {
                if (createPartitions <= 0) {
                    throw new FleetInputException("topic " + topic + " does not exist at " + bootstrap
                            + " (vigil ship --create-topic creates it)");
                }
                try {
                    admin.createTopics(List.of(new NewTopic(topic, createPartitions, replication)))
                            .all().get(waitMs, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new FleetInputException("creating topic " + topic + " at " + bootstrap + " failed: "
                                + e.getCause().getMessage(), e.getCause());
                    }
                }
                return partitions(admin, topic, waitMs);
            }
        } catch (TimeoutException e) {
            throw unreachable(bootstrap, waitMs, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unreachable(bootstrap, waitMs, e);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw unreachable(bootstrap, waitMs, e);
        } finally {
            // Operations still pending (no broker) are abandoned rather than waited for.
            admin.close(Duration.ofMillis(200));
        }
    }

    private static int partitions(Admin admin, String topic, long waitMs)
            throws InterruptedException, TimeoutException {
        try {
            Map<String, TopicDescription> d = admin.describeTopics(List.of(topic),
                    new org.apache.kafka.clients.admin.DescribeTopicsOptions().timeoutMs((int) waitMs)).allTopicNames()
                    .get(waitMs, TimeUnit.MILLISECONDS);
            return d.get(topic).partitions().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException u) {
                throw u;
            }
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException t) {
                throw new TimeoutException(t.getMessage());
            }
            throw new FleetInputException("describing topic " + topic + " failed: " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    static BrokerUnreachableException unreachable(String bootstrap, long waitMs, Throwable cause) {
        return new BrokerUnreachableException("no Kafka broker answered at " + bootstrap + " within "
                + Duration.ofMillis(waitMs).toSeconds() + " s", cause);
    }
}

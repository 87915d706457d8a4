/**
 * Docker Hub's `library/` namespace holds the Docker Official Images only
 * (github.com/docker-library/official-images, library/): a short name such
 * as `webserver` outside them names no repository, and the registry answers
 * the pull's token request with insufficient_scope, which containerd reports
 * as "pull access denied, repository does not exist or may require
 * authorization". The list is the program's names (deprecated ones kept:
 * their repositories still exist).
 */
const NAMES = `
adminer aerospike almalinux alpine alt amazoncorretto amazonlinux api-firewall arangodb archlinux
backdrop bash bonita buildpack-deps busybox caddy cassandra centos chronograf cirros clearlinux
clefos clickhouse clojure composer consul convertigo couchbase couchdb crate crux dart debian
docker drupal eclipse-mosquitto eclipse-temurin eggdrop elasticsearch elixir emqx erlang express
fedora flink fluentd friendica gazebo gcc geonetwork ghost golang gradle groovy haproxy haskell
haxe hello-world hitch httpd hylang ibm-semeru-runtimes ibmjava influxdb irssi jetty jobber joomla
jruby julia kapacitor kibana kong krakend lightstreamer liquibase logstash mageia mariadb matomo
maven mediawiki memcached mongo mongo-express monica mono mysql nats neo4j neurodebian nextcloud
nginx node notary odoo open-liberty openjdk oraclelinux orientdb percona perl photon php php-zendserver
phpmyadmin plone postfixadmin postgres pypy python r-base rabbitmq rakudo-star redis redmine
registry rethinkdb rocket.chat rockylinux ros ruby rust sapmachine satosa scratch silverpeas
sl solr sonarqube spiped storm swift swipl teamspeak telegraf tomcat tomee traefik ubuntu
unit varnish websphere-liberty wordpress xwiki yourls znc zookeeper
celery django glassfish iojs java jenkins kaazing-gateway known nats-streaming nuxeo opensuse owncloud piwik
rails sentry sourcemage swarm thrift ubuntu-debootstrap ubuntu-upstart vault
`;

export const DOCKER_OFFICIAL_IMAGES: ReadonlySet<string> = new Set(NAMES.split(/\s+/).filter(Boolean));

/** The registry's answer to a pull of a `docker.io/library/` name that is no official image. */
export const PULL_ACCESS_DENIED = 'pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed';

/** Whether a normalized repository name (`docker.io/library/webserver`) is a Docker Hub library name no repository answers to. */
export function missingDockerLibraryRepository(name: string): boolean {
  const prefix = 'docker.io/library/';
  return name.startsWith(prefix) && !DOCKER_OFFICIAL_IMAGES.has(name.slice(prefix.length));
}

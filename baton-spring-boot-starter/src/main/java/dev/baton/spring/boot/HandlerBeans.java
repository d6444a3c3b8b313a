package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.InvalidConfigException;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import java.util.List;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.ResolvableType;

/**
 * Registers every {@link JobHandler} bean for its args type, read from the bean's declared type: a
 * class implementing {@code JobHandler<SendEmail>}, or a {@code @Bean} method declared to return
 * {@code JobHandler<SendEmail>}.
 */
final class HandlerBeans {
  private final ConfigurableListableBeanFactory beanFactory;
  private final List<String> names;

  HandlerBeans(ConfigurableListableBeanFactory beanFactory) {
    this.beanFactory = beanFactory;
    this.names = List.of(beanFactory.getBeanNamesForType(JobHandler.class, true, false));
  }

  boolean isEmpty() {
    return names.isEmpty();
  }

  /**
   * Registers each handler bean with {@code builder}.
   *
   * @throws InvalidConfigException if a bean's args type cannot be resolved
   */
  void registerWith(Baton.Builder builder) {
    for (String name : names) {
      JobHandler<?> handler = beanFactory.getBean(name, JobHandler.class);
      register(builder, argsType(name, handler), handler);
    }
  }

  private Class<? extends JobArgs> argsType(String name, JobHandler<?> handler) {
    ResolvableType declared = ResolvableType.NONE;
    if (beanFactory.containsBeanDefinition(name)) {
      declared = beanFactory.getMergedBeanDefinition(name).getResolvableType();
    }
    Class<?> type = argsOf(declared);
    if (type == null) {
      type = argsOf(ResolvableType.forClass(AopUtils.getTargetClass(handler)));
    }
    if (type == null || type == JobArgs.class || !JobArgs.class.isAssignableFrom(type)) {
      throw new InvalidConfigException(
          "JobHandler bean \"" + name + "\"",
          "a handler whose args type can be resolved: a class implementing JobHandler<SomeArgs>, or"
              + " a @Bean method declared to return JobHandler<SomeArgs>, SomeArgs a JobArgs class;"
              + " or register it with a BatonBuilderCustomizer",
          declared == ResolvableType.NONE ? handler.getClass().getName() : declared.toString());
    }
    return type.asSubclass(JobArgs.class);
  }

  private static Class<?> argsOf(ResolvableType type) {
    if (type == ResolvableType.NONE) {
      return null;
    }
    return type.as(JobHandler.class).getGeneric(0).resolve();
  }

  @SuppressWarnings("unchecked")
  private static <A extends JobArgs> void register(
      Baton.Builder builder, Class<A> argsType, JobHandler<?> handler) {
    builder.handler(argsType, (JobHandler<A>) handler);
  }
}
